// Replaces the global operator new/delete of the test binary to count allocations per
// thread, so tests can assert "no allocation once warm" and "never allocates the claimed size".

#include "cosim/test/allocation_probe.hpp"

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

thread_local int t_depth = 0;             // > 0 while an AllocationProbe is alive
thread_local std::size_t t_count = 0;
thread_local std::size_t t_largest = 0;

void note(std::size_t n) noexcept {
  if (t_depth > 0) {
    ++t_count;
    if (n > t_largest) t_largest = n;
  }
}

void* checked_malloc(std::size_t n) {
  note(n);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

// Over-aligned blocks by hand (msvcrt has no aligned_alloc): malloc enough to align, and keep
// malloc's pointer just before the aligned block for aligned_free().
void* checked_aligned(std::size_t n, std::align_val_t a) {
  note(n);
  const auto align = static_cast<std::size_t>(a);
  void* raw = std::malloc(n + align + sizeof(void*));
  if (raw == nullptr) throw std::bad_alloc();
  const auto first_free = reinterpret_cast<std::uintptr_t>(raw) + sizeof(void*);
  void* aligned = reinterpret_cast<void*>((first_free + align - 1) / align * align);
  static_cast<void**>(aligned)[-1] = raw;
  return aligned;
}

void aligned_free(void* p) noexcept {
  if (p != nullptr) std::free(static_cast<void**>(p)[-1]);
}

}  // namespace

namespace cosim::test {
AllocationProbe::AllocationProbe() {
  if (t_depth++ == 0) t_count = t_largest = 0;
}
AllocationProbe::~AllocationProbe() { --t_depth; }
std::size_t AllocationProbe::count() const { return t_count; }
std::size_t AllocationProbe::largest() const { return t_largest; }
}  // namespace cosim::test

void* operator new(std::size_t n) { return checked_malloc(n); }
void* operator new[](std::size_t n) { return checked_malloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  note(n);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  note(n);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new(std::size_t n, std::align_val_t a) { return checked_aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return checked_aligned(n, a); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return checked_aligned(n, a);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  try {
    return checked_aligned(n, a);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { aligned_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { aligned_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { aligned_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { aligned_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { aligned_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { aligned_free(p); }
