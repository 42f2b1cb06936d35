// The call text an adv.call marker carries (ops_adv.cpp): the Ascend C statement of a library call, with
// placeholders {N} (operand N) and {T:N} (the C type of its dtype); `{{` and `}}` are literal braces. The
// verifier checks it and the Ascend C emitter writes it, both through expand_adv_call.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace asc {

// `call` with each placeholder replaced by placeholder(operand, is_type). False, with `error` saying why, when a
// brace is unmatched or a placeholder names no operand of the `operands`.
bool expand_adv_call(const std::string& call, size_t operands,
                     const std::function<std::string(size_t operand, bool is_type)>& placeholder, std::string* out,
                     std::string* error);

}  // namespace asc
