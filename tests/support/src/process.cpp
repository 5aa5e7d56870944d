#include <algorithm>
#include "cosim/test/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace cosim::test {

Process::Process(const std::filesystem::path& exe, std::vector<std::string> args,
                 const std::filesystem::path& log_prefix, Setup setup)
    : out_path_(log_prefix.string() + ".out"), err_path_(log_prefix.string() + ".err") {
  std::vector<std::string> argv_storage;
  argv_storage.push_back(exe.string());
  for (auto& a : args) argv_storage.push_back(std::move(a));
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ > 0 && setup.own_process_group) setpgid(pid_, pid_);  // both sides: no race with kill_group
  if (pid_ == 0) {
    if (setup.own_process_group) setpgid(0, 0);
    if (setup.file_size_limit) {
      const rlimit limit{*setup.file_size_limit, *setup.file_size_limit};
      setrlimit(RLIMIT_FSIZE, &limit);
    }
    const int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, STDIN_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
}

void Process::kill_group(int signal) {
  if (pid_ > 0) ::kill(-pid_, signal);
}

Process::~Process() {
  if (!status_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    wait(std::chrono::milliseconds(5000));
  }
}

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  if (status_) return status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    rusage usage{};
    const pid_t r = wait4(pid_, &status, WNOHANG, &usage);
    if (r == pid_) {
      max_rss_kib_ = usage.ru_maxrss;
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return status_;
    }
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void Process::kill(int signal) {
  if (!status_) ::kill(pid_, signal);
}

bool Process::running() { return !wait(std::chrono::milliseconds(0)).has_value(); }

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Process::out() const { return read_file(out_path_); }
std::string Process::err() const { return read_file(err_path_); }

TempDir::TempDir(const std::string& tag) {
  std::random_device rd;
  // A parameterised test's name has a '/' ("Case/fifo"): one folder, not a parent left behind.
  std::string name = tag;
  std::replace(name.begin(), name.end(), '/', '-');
  path_ = std::filesystem::temp_directory_path() /
          ("cosim-test-" + name + "-" + std::to_string(getpid()) + "-" + std::to_string(rd() % 1000000));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  if (std::getenv("COSIM_KEEP_TEST_DIRS") == nullptr) std::filesystem::remove_all(path_, ec);
}

int Csv::column(const std::string& name) const {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<double> Csv::values(const std::string& name) const {
  const int c = column(name);
  if (c < 0) throw std::runtime_error("no CSV column " + name);
  std::vector<double> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(row.at(static_cast<std::size_t>(c)));
  return out;
}

Csv read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  Csv csv;
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(path.string() + ": empty");
  {
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) csv.columns.push_back(cell);
  }
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) row.push_back(std::strtod(cell.c_str(), nullptr));
    if (row.size() != csv.columns.size()) {
      throw std::runtime_error(path.string() + ": row " + std::to_string(csv.rows.size() + 1) + " has " +
                               std::to_string(row.size()) + " cells, header has " +
                               std::to_string(csv.columns.size()));
    }
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

}  // namespace cosim::test
