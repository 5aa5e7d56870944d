// Windows named-pipe channel (pipe_channel.hpp). Built on Windows only.

#include "deadline.hpp"
#include "setup_fail.hpp"
#include "read_buffer.hpp"

#include <cosim/platform/output_file.hpp>
#include <cosim/platform/paths.hpp>
#include <cosim/wire/errors.hpp>
#include <cosim/wire/interrupt.hpp>
#include <cosim/wire/pipe_channel.hpp>

// Boost 1.74's Asio with GCC 12 in C++20 mode needs <utility> first.
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/windows/overlapped_ptr.hpp>
#include <boost/asio/windows/stream_handle.hpp>
#include <boost/asio/write.hpp>

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

namespace cosim::wire {
namespace {

namespace asio = boost::asio;
using Clock = detail::Clock;
using detail::deadline_after;
using detail::seconds_text;
using std::chrono::milliseconds;
using Kind = ChannelSetupError::Kind;

constexpr DWORD kPipeBufferBytes = 64 * 1024;        // per direction, as a Linux FIFO
constexpr std::size_t kMaxNameChars = 200;           // \\.\pipe\ names may have 256 in all

using detail::fail;

std::string windows_error(DWORD error) {
  return platform::error_text(std::error_code(static_cast<int>(error), std::system_category()));
}

std::wstring full_pipe_name(const std::string& name) {
  return platform::path_from_utf8("\\\\.\\pipe\\" + name).wstring();
}

// Frees memory Windows allocated for us with LocalAlloc.
struct LocalFreer {
  void operator()(void* p) const noexcept { LocalFree(p); }
};

/// The current user's SID, as text ("S-1-5-21-...").
std::wstring current_user_sid(const std::string& where) {
  HANDLE token = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) {
    fail(Kind::io, where + ": cannot read this process's user: " + windows_error(GetLastError()));
  }
  DWORD bytes = 0;
  GetTokenInformation(token, TokenUser, nullptr, 0, &bytes);
  std::vector<unsigned char> buffer(bytes);
  const bool ok = bytes != 0 && GetTokenInformation(token, TokenUser, buffer.data(), bytes, &bytes);
  const DWORD error = GetLastError();
  CloseHandle(token);
  if (!ok) fail(Kind::io, where + ": cannot read this process's user: " + windows_error(error));
  wchar_t* text = nullptr;
  if (!ConvertSidToStringSidW(reinterpret_cast<TOKEN_USER*>(buffer.data())->User.Sid, &text)) {
    fail(Kind::io, where + ": cannot format this process's user: " + windows_error(GetLastError()));
  }
  std::unique_ptr<wchar_t, LocalFreer> owned(text);
  return text;
}

/// A security descriptor owned by the current user whose protected DACL grants everything to
/// that user and nothing to anyone else (no inherited entries, no Everyone/Administrators
/// access). The owner is explicit: by default it would be the token's default owner, which is
/// Administrators for an elevated administrator (and a group under Wine), and the visual side
/// checks it.
std::unique_ptr<void, LocalFreer> owner_only_descriptor(const std::string& where) {
  const std::wstring user = current_user_sid(where);
  const std::wstring sddl = L"O:" + user + L"D:P(A;;GA;;;" + user + L")";
  PSECURITY_DESCRIPTOR descriptor = nullptr;
  if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, &descriptor, nullptr)) {
    fail(Kind::io, where + ": cannot build the pipe's security descriptor: " + windows_error(GetLastError()));
  }
  return std::unique_ptr<void, LocalFreer>(descriptor);
}

/// Refuses a pipe someone else created under our name (squatting): its owner must be us.
void check_owner(HANDLE pipe, const std::string& where) {
  PSID owner = nullptr;
  PSECURITY_DESCRIPTOR descriptor = nullptr;
  const DWORD error =
      GetSecurityInfo(pipe, SE_KERNEL_OBJECT, OWNER_SECURITY_INFORMATION, &owner, nullptr, nullptr, nullptr, &descriptor);
  if (error != ERROR_SUCCESS) fail(Kind::io, where + ": cannot read the pipe's owner: " + windows_error(error));
  std::unique_ptr<void, LocalFreer> owned(descriptor);
  wchar_t* owner_text = nullptr;
  if (owner == nullptr || !ConvertSidToStringSidW(owner, &owner_text)) {
    fail(Kind::io, where + ": cannot read the pipe's owner: " + windows_error(GetLastError()));
  }
  std::unique_ptr<wchar_t, LocalFreer> owned_text(owner_text);
  if (current_user_sid(where) != owner_text) {
    fail(Kind::bad_input, where + ": the pipe is owned by " + platform::utf8(std::filesystem::path(owner_text)) +
                              ", not by this user; refusing it");
  }
}

void check_name(const std::string& name, const std::string& where) {
  if (name.empty()) fail(Kind::bad_input, "pipe channel: empty pipe name");
  if (name.size() > kMaxNameChars) fail(Kind::bad_input, where + ": pipe name longer than 200 characters");
  if (name.find('\\') != std::string::npos) fail(Kind::bad_input, where + ": a pipe name has no backslash");
}

// A peer that closed its end or died: end of file, broken pipe, pipe being closed.
bool is_peer_closed(const boost::system::error_code& ec) {
  if (ec == asio::error::eof || ec == asio::error::broken_pipe) return true;
  if (ec.category() != boost::system::system_category()) return false;
  const auto v = static_cast<DWORD>(ec.value());
  return v == ERROR_BROKEN_PIPE || v == ERROR_NO_DATA || v == ERROR_PIPE_NOT_CONNECTED || v == ERROR_HANDLE_EOF;
}

/// Memory for one asynchronous operation at a time, so the data path does not allocate: Asio
/// caches handler memory per thread only inside run(), and operations start outside it.
/// Falls back to the heap if an operation needs more or the slot is taken.
struct HandlerSlot {
  alignas(std::max_align_t) unsigned char storage[1024];
  bool in_use = false;
};

template <class T>
struct SlotAllocator {
  using value_type = T;
  explicit SlotAllocator(HandlerSlot* s) noexcept : slot(s) {}
  template <class U>
  SlotAllocator(const SlotAllocator<U>& other) noexcept : slot(other.slot) {}
  T* allocate(std::size_t n) {
    if (!slot->in_use && n * sizeof(T) <= sizeof slot->storage) {
      slot->in_use = true;
      return reinterpret_cast<T*>(slot->storage);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept {
    if (reinterpret_cast<unsigned char*>(p) == slot->storage) {
      slot->in_use = false;
    } else {
      ::operator delete(p);
    }
  }
  template <class U>
  bool operator==(const SlotAllocator<U>& other) const noexcept { return slot == other.slot; }
  HandlerSlot* slot;
};

/// The outcome of one asynchronous operation, written by its handler on whichever thread
/// runs it, read by the thread that waits for it.
struct OpResult {
  std::atomic<bool> finished{false};
  boost::system::error_code error;
  std::size_t bytes = 0;
};

/// A completion handler that records into an OpResult and takes its memory from a slot.
struct RecordingHandler {
  using allocator_type = SlotAllocator<void>;
  allocator_type get_allocator() const noexcept { return allocator_type(slot); }
  void operator()(const boost::system::error_code& ec, std::size_t n) const {
    result->error = ec;
    result->bytes = n;
    result->finished.store(true, std::memory_order_release);
  }
  OpResult* result;
  HandlerSlot* slot;
};

}  // namespace

struct PipeChannel::Impl {
  explicit Impl(const std::string& name)
      : description("pipe:" + name), handle(io) {}

  /// Runs completions until `result` is finished (then {}), the deadline (timeout) or a stop
  /// (interrupted); the operation itself is left pending. Any waiting thread may run any
  /// handler: with two waiters (one reading, one writing) the slices are short so each sees
  /// its own completion soon even when the other thread ran it.
  std::error_code wait_for(const OpResult& result, Clock::time_point deadline) {
    waiters.fetch_add(1);
    std::error_code why;
    for (;;) {
      if (result.finished.load(std::memory_order_acquire)) break;
      const auto now = Clock::now();
      if (stop_requested() || now >= deadline) {
        io.poll();  // what has completed by now still counts
        if (!result.finished.load(std::memory_order_acquire)) {
          why = stop_requested() ? Errc::interrupted : Errc::timeout;
        }
        break;
      }
      const Clock::duration slice = waiters.load() > 1 ? Clock::duration(milliseconds(1)) : detail::kStopPollSlice;
      io.run_one_for(std::min<Clock::duration>(deadline - now, slice));
    }
    waiters.fetch_sub(1);
    return why;
  }

  /// Starts the read into read_buffer unless one is pending already (a read that timed out
  /// stays pending, so no byte is lost and nothing needs cancelling).
  void start_read() {
    if (read_pending) return;
    read_pending = true;
    read_result.finished.store(false, std::memory_order_relaxed);
    handle.async_read_some(asio::buffer(read_buffer.data(), read_buffer.capacity()),
                           RecordingHandler{&read_result, &read_slot});
  }

  /// Takes the finished read's outcome: bytes into the buffer, or the error.
  boost::system::error_code finish_read() {
    read_pending = false;
    read_buffer.filled(read_result.bytes);
    return read_result.bytes != 0 ? boost::system::error_code() : read_result.error;
  }

  // Declared before the io_context: its destructor drains the operations that use them.
  std::string description;
  HandlerSlot read_slot, write_slot;
  detail::ReadBuffer read_buffer;
  OpResult read_result;
  asio::io_context io{1};
  // Keeps run_one_for() waiting between operations instead of stopping for lack of work.
  asio::executor_work_guard<asio::io_context::executor_type> keep_running{io.get_executor()};
  asio::windows::stream_handle handle;
  std::atomic<int> waiters{0};
  bool read_pending = false;
};

PipeChannel::PipeChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PipeChannel::~PipeChannel() { close(); }

std::unique_ptr<PipeChannel> PipeChannel::listen(const PipeOptions& options) {
  auto impl = std::make_unique<Impl>(options.name);
  const std::string& where = impl->description;
  check_name(options.name, where);
  const auto deadline = deadline_after(options.open_timeout);

  const auto descriptor = owner_only_descriptor(where);
  SECURITY_ATTRIBUTES attributes{sizeof attributes, descriptor.get(), FALSE};
  const HANDLE pipe = CreateNamedPipeW(
      full_pipe_name(options.name).c_str(), PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
      PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, /*max instances=*/1,
      kPipeBufferBytes, kPipeBufferBytes, /*default timeout=*/0, &attributes);
  if (pipe == INVALID_HANDLE_VALUE) {
    const DWORD error = GetLastError();
    if (error == ERROR_ACCESS_DENIED || error == ERROR_PIPE_BUSY) {
      fail(Kind::bad_input, where + ": in use by another cosim-dynamics (or another program); one session per pipe name");
    }
    if (error == ERROR_INVALID_NAME) fail(Kind::bad_input, where + ": not a valid pipe name");
    fail(Kind::io, where + ": cannot create the pipe: " + windows_error(error));
  }
  impl->handle.assign(pipe);

  // Wait for the visual side: ConnectNamedPipe, overlapped, completed through the io_context.
  OpResult connected;
  asio::windows::overlapped_ptr connect_op(impl->io, RecordingHandler{&connected, &impl->write_slot});
  OVERLAPPED* const connect_overlapped = connect_op.get();
  if (ConnectNamedPipe(pipe, connect_overlapped)) {
    connect_op.complete({}, 0);
  } else if (const DWORD error = GetLastError(); error == ERROR_IO_PENDING) {
    connect_op.release();
  } else if (error == ERROR_PIPE_CONNECTED) {  // the peer was quicker than us
    connect_op.complete({}, 0);
  } else {
    connect_op.complete(boost::system::error_code(static_cast<int>(error), boost::system::system_category()), 0);
  }
  if (const auto why = impl->wait_for(connected, deadline)) {
    CancelIoEx(pipe, connect_overlapped);
    while (!connected.finished.load(std::memory_order_acquire)) impl->io.run_one_for(milliseconds(10));
    // A peer that connected just as the wait ended is kept (no error from the cancelled op).
    if (connected.error) {
      if (why == Errc::interrupted) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
      fail(Kind::timeout, "no peer opened " + where + " within " + seconds_text(options.open_timeout) +
                              " (is the visual side running with --channel " + where + "?)");
    }
  }
  if (connected.error) fail(Kind::io, where + ": cannot wait for a peer: " + connected.error.message());
  return std::unique_ptr<PipeChannel>(new PipeChannel(std::move(impl)));
}

std::unique_ptr<PipeChannel> PipeChannel::connect(const PipeOptions& options) {
  auto impl = std::make_unique<Impl>(options.name);
  const std::string& where = impl->description;
  check_name(options.name, where);
  const auto deadline = deadline_after(options.open_timeout);
  const std::wstring full_name = full_pipe_name(options.name);

  milliseconds backoff{1};  // 1 ms first (fast pickup), up to 10 ms (low CPU)
  for (;;) {
    // Identification only: the dynamics side may learn who we are, not act as us.
    const HANDLE pipe = CreateFileW(full_name.c_str(), GENERIC_READ | GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                                    FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, nullptr);
    if (pipe != INVALID_HANDLE_VALUE) {
      impl->handle.assign(pipe);
      check_owner(pipe, where);
      return std::unique_ptr<PipeChannel>(new PipeChannel(std::move(impl)));
    }
    const DWORD error = GetLastError();
    if (error == ERROR_PIPE_BUSY) {
      fail(Kind::bad_input, where + ": in use by another visual side; one session per pipe name");
    }
    if (error == ERROR_ACCESS_DENIED) {
      fail(Kind::bad_input, where + ": the pipe does not admit this user (another user's session?); refusing it");
    }
    if (error != ERROR_FILE_NOT_FOUND) fail(Kind::io, where + ": cannot open the pipe: " + windows_error(error));
    if (stop_requested()) fail(Kind::interrupted, where + ": interrupted while waiting for a peer");
    const auto now = Clock::now();
    if (now >= deadline) {
      fail(Kind::timeout, "no peer opened " + where + " within " + seconds_text(options.open_timeout) +
                              " (is the dynamics side running with --channel " + where + "?)");
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, milliseconds(10));
  }
}

std::error_code PipeChannel::write_all(std::span<const std::byte> bytes, milliseconds timeout) {
  Impl& m = *impl_;
  if (bytes.empty()) return {};
  if (!m.handle.is_open()) return Errc::io_error;
  OpResult result;
  asio::async_write(m.handle, asio::buffer(bytes.data(), bytes.size()), RecordingHandler{&result, &m.write_slot});
  if (const auto why = m.wait_for(result, deadline_after(timeout))) {
    // The caller's bytes must not be written after we return: cancel (this also cancels a
    // pending read, which read_exact() then starts again) and wait for the handler.
    boost::system::error_code ignored;
    m.handle.cancel(ignored);
    while (!result.finished.load(std::memory_order_acquire)) m.io.run_one_for(milliseconds(1));
    if (result.error) return why;
  }
  if (!result.error) return {};
  return is_peer_closed(result.error) ? Errc::peer_closed : Errc::io_error;
}

std::error_code PipeChannel::read_exact(std::span<std::byte> out, milliseconds timeout) {
  Impl& m = *impl_;
  std::size_t done = m.read_buffer.take(out);
  if (done == out.size()) return {};
  if (!m.handle.is_open()) return Errc::io_error;
  const auto deadline = deadline_after(timeout);
  while (done < out.size()) {
    m.start_read();
    if (const auto why = m.wait_for(m.read_result, deadline)) return why;  // the read stays pending
    const auto error = m.finish_read();
    if (!error) {
      done += m.read_buffer.take(out.subspan(done));
      continue;
    }
    if (error == asio::error::operation_aborted && m.handle.is_open()) continue;  // a write's cancel
    return is_peer_closed(error) ? Errc::peer_closed : Errc::io_error;
  }
  return {};
}

bool PipeChannel::readable_now() {
  Impl& m = *impl_;
  if (!m.read_buffer.empty()) return true;
  if (!m.handle.is_open()) return true;  // a read fails at once
  if (m.read_pending) {
    // Data goes to the pending read first: it has finished if anything arrived.
    m.io.poll();
    return m.read_result.finished.load(std::memory_order_acquire);
  }
  DWORD available = 0;
  if (!PeekNamedPipe(m.handle.native_handle(), nullptr, 0, nullptr, &available, nullptr)) return true;  // closed
  return available != 0;
}

void PipeChannel::close() noexcept {
  boost::system::error_code ignored;
  impl_->handle.close(ignored);
  impl_->read_buffer.clear();
}

std::string PipeChannel::describe() const { return impl_->description; }

}  // namespace cosim::wire
