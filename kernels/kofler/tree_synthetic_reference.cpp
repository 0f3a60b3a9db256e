//! The checksum a correct synthetic-kernel run leaves (lb/kofler/tree_synthetic.hpp), computed
//! from the closed form of every field, in parallel.

#include "lb/kofler/tree_synthetic.hpp"

#include <cstdint>

namespace lb::kofler::tree {

Checksum reference_checksum(std::size_t records, std::size_t m) {
  unsigned long long sum = 0;
  const auto n = static_cast<std::int64_t>(records);
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (std::int64_t r = 0; r < n; ++r)
    for (std::size_t j = 0; j < m; ++j) sum += checksum_term(expected_field(static_cast<std::size_t>(r), j, m));
  return {sum, static_cast<unsigned long long>(records * m)};
}

}  // namespace lb::kofler::tree
