#include <cosim/wire/errors.hpp>
#include <cosim/wire/testing/faulty_channel.hpp>

#include <atomic>

namespace cosim::wire::testing {
namespace {

using std::chrono::milliseconds;

class FaultyChannel final : public Channel {
 public:
  FaultyChannel(std::unique_ptr<Channel> inner, FaultPlan plan) : inner_(std::move(inner)), plan_(plan) {}

  std::error_code write_all(std::span<const std::byte> bytes, milliseconds timeout) override {
    const int call = ++writes_;
    if (call == plan_.fail_on_write) return Errc::injected_fault;
    if (call == plan_.truncate_on_write) {
      if (auto ec = inner_->write_all(bytes.first(bytes.size() / 2), timeout)) return ec;
      inner_->close();
      return Errc::injected_fault;
    }
    if (call == plan_.corrupt_on_write && !bytes.empty()) {
      // The caller's bytes are const: send the flipped first byte on its own, then the rest.
      const std::byte flipped[1] = {~bytes[0]};
      if (auto ec = inner_->write_all(flipped, timeout)) return ec;
      return inner_->write_all(bytes.subspan(1), timeout);
    }
    return inner_->write_all(bytes, timeout);
  }

  std::error_code read_exact(std::span<std::byte> out, milliseconds timeout) override {
    if (++reads_ == plan_.fail_on_read) return Errc::injected_fault;
    return inner_->read_exact(out, timeout);
  }

  bool readable_now() override { return inner_->readable_now(); }
  void close() noexcept override { inner_->close(); }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<Channel> inner_;
  FaultPlan plan_;
  // Counted apart: one thread may write while another reads (Channel's contract).
  std::atomic<int> writes_{0};  // write_all calls so far
  std::atomic<int> reads_{0};   // read_exact calls so far
};

}  // namespace

std::unique_ptr<Channel> with_faults(std::unique_ptr<Channel> inner, FaultPlan plan) {
  return std::make_unique<FaultyChannel>(std::move(inner), plan);
}

}  // namespace cosim::wire::testing
