#include "ir/printf_format.h"

#include <cstring>

#include "support/error.h"

namespace asc {

std::vector<FormatPiece> parse_printf_format(std::string_view format) {
  std::vector<FormatPiece> pieces;
  std::string text;
  for (size_t i = 0; i < format.size(); ++i) {
    char ch = format[i];
    if (ch != '%') {
      text += ch;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      text += '%';
      ++i;
      continue;
    }
    size_t start = i++;
    while (i < format.size() && std::strchr("-+ #0", format[i])) ++i;         // flags
    while (i < format.size() && (format[i] >= '0' && format[i] <= '9')) ++i;  // width
    if (i < format.size() && format[i] == '.')
      for (++i; i < format.size() && format[i] >= '0' && format[i] <= '9';) ++i;  // precision
    while (i < format.size() && (format[i] == 'l' || format[i] == 'h')) ++i;      // length (the Model widens)
    if (i >= format.size() || !std::strchr("diuxXofFeEgGcsp", format[i]))
      fail(ASC_ERR_TYPE,
           "printf: unsupported conversion '{}' in the format (supported: %d %i %u %x %X %o %f %F %e %E "
           "%g %G %c %%, with flags, width, precision and l/ll/h/hh; %s and %p of a GM address; %s also takes a "
           "Python string)",
           std::string(format.substr(start, i + 1 - start)));
    if (!text.empty()) pieces.push_back({std::move(text), 0});
    text.clear();
    std::string spec;
    for (char c : format.substr(start, i + 1 - start))
      if (c != 'l' && c != 'h') spec += c;  // length modifiers are re-added by the formatter
    pieces.push_back({spec, format[i]});
  }
  if (!text.empty()) pieces.push_back({std::move(text), 0});
  return pieces;
}

}  // namespace asc
