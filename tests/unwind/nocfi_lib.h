#pragma once
extern "C" void unwind_nocfi_call(void (*fn)(void*), void* arg);
extern "C" void unwind_debug_frame_call(void (*fn)(void*), void* arg);
