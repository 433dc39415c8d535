#pragma once
extern "C" void unwind_nocfi_call(void (*fn)(void*), void* arg);
