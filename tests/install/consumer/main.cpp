// Uses cosim's installed libraries as a third party would. Exit 0 when everything worked.
#include <cstdio>
#include <filesystem>

#include <cosim/protocol/connection.hpp>
#include <cosim/protocol/version.hpp>
#include <cosim/scene/scene.hpp>
#include <cosim/wire/mem_channel.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer SCENE_FOLDER\n");
    return 2;
  }
  const auto scene = cosim::scene::SceneModel::load(argv[1]);
  std::printf("scene %s: %zu driven joints, %zu probes\n", scene.name().c_str(), scene.joint_names().size(),
              scene.probes().size());

  auto [a, b] = cosim::wire::make_mem_channel_pair();
  cosim::protocol::Connection dynamics(std::move(a), cosim::wire::Direction::to_visual, nullptr);
  cosim::protocol::Connection visual(std::move(b), cosim::wire::Direction::to_dynamics, nullptr);
  cosim::v1::Envelope hello;
  hello.mutable_hello()->set_model(scene.name());
  hello.mutable_hello()->mutable_protocol()->set_major(cosim::protocol::kProtocolMajor);
  dynamics.send(hello, std::chrono::milliseconds(1000));
  cosim::v1::Envelope got;
  if (!visual.receive(got, std::chrono::milliseconds(1000)) || got.hello().model() != scene.name()) {
    std::fprintf(stderr, "consumer: the Hello did not arrive\n");
    return 1;
  }
  std::printf("Hello for %s over %s\n", got.hello().model().c_str(), visual.describe().c_str());
  return scene.joint_names().empty() ? 1 : 0;
}
