//===- Backend.cpp - the registry of backends -----------------------------===//

#include "runtime/core/Backend.h"

namespace duet::rt {

Status BackendRegistry::add(std::shared_ptr<Backend> backend) {
  if (!backend)
    return Status::error("cannot register a null backend");
  if (find(backend->name()))
    return Status::error("a backend named '{}' is already registered",
                         backend->name());
  backends_.push_back(std::move(backend));
  return Status::ok();
}

Backend *BackendRegistry::find(std::string_view name) const {
  for (const auto &backend : backends_)
    if (backend->name() == name)
      return backend.get();
  return nullptr;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> result;
  for (const auto &backend : backends_)
    result.emplace_back(backend->name());
  return result;
}

BackendRegistry &defaultBackends() {
  static BackendRegistry registry = [] {
    BackendRegistry builtin;
    addBuiltinBackends(builtin);
    return builtin;
  }();
  return registry;
}

} // namespace duet::rt
