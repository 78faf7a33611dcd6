// Which process this is, in a way that a copy of the process cannot fake by accident.
//
// Every piece of process-local signing state (an operation in flight, a reservation, an index
// lease, a state handle's descriptor) records the token of the process that made it and refuses to
// work in any other (docs/state.md "One process, one owner"). A child made by fork() — or by a raw
// clone() that runs no pthread_atfork handler — has a copy of the parent's memory, so a flag in
// memory cannot tell them apart; the token lives in a page marked MADV_WIPEONFORK, which the
// kernel gives every child without CLONE_VM zero-filled, whoever made it and however. The process
// id is checked as well: it covers kernels without MADV_WIPEONFORK (before Linux 4.14), and the
// page covers the one case pids cannot (a child in a new pid namespace can have its parent's pid).
// A child with CLONE_VM (vfork, a raw clone sharing memory) shares the page: it gets a word of its
// own there, and its parent keeps its token.
#pragma once

#include <cstdint>

namespace klms {

// Nonzero, random, the same for every call in one process, different in every child. Cheap: one
// load and one getpid().
std::uint64_t process_token() noexcept;

}  // namespace klms
