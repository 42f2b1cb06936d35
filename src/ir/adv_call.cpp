#include "ir/adv_call.h"

#include <fmt/format.h>

namespace asc {

bool expand_adv_call(const std::string& call, size_t operands,
                     const std::function<std::string(size_t operand, bool is_type)>& placeholder, std::string* out,
                     std::string* error) {
  std::string text;
  for (size_t i = 0; i < call.size(); ++i) {
    char c = call[i];
    if ((c == '{' || c == '}') && i + 1 < call.size() && call[i + 1] == c) {
      text += c;
      ++i;
      continue;
    }
    if (c == '}') {
      *error = "an unmatched '}' in the call";
      return false;
    }
    if (c != '{') {
      text += c;
      continue;
    }
    size_t end = call.find('}', i);
    if (end == std::string::npos) {
      *error = "an unterminated placeholder in the call";
      return false;
    }
    std::string name = call.substr(i + 1, end - i - 1);
    bool is_type = name.rfind("T:", 0) == 0;
    std::string index = is_type ? name.substr(2) : name;
    bool digits = !index.empty() && index.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoul(index) >= operands) {
      *error = fmt::format("placeholder {{{}}} names no operand of the call's {}", name, operands);
      return false;
    }
    text += placeholder(std::stoul(index), is_type);
    i = end;
  }
  *out = std::move(text);
  return true;
}

}  // namespace asc
