// RFC 4180 CSV: fields with a comma, quote, CR or LF are quoted and quotes
// doubled (C++ names are full of commas and quotes); lines end with CRLF.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kprof {

std::string csv_field(std::string_view field);
void write_csv_row(std::ostream& out, const std::vector<std::string>& fields);

}  // namespace kprof
