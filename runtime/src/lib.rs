//! Ferrite's runtime: one runtime behind two APIs (OpenCL and Level-Zero).
//!
//! Speaks Rust: objects are `Arc`s, errors are typed ([`error`]); only `icd/` names
//! `cl_*`/`ze_*` types and maps errors to codes. Objects that an API hands out start with
//! an [`api::ApiObject`] header (dispatch pointer, type tag, API reference count) so the
//! `icd` crate can use `Arc::as_ptr` as the handle; internal holders use plain `Arc`
//! clones and never touch the API count.
//!
//! Layout (one file per noun):
//! - `api`: the handle header and the type tags.
//! - `platform`, `device`: the one platform and the one CPU device, and their properties.
//! - `context`, `queue`, `event`: contexts, in-order command queues fed by a worker
//!   thread each, events with status, callbacks and profiling timestamps.
//! - `mem/`: buffers (host memory: aligned allocations, zero-copy host pointers, maps).
//! - `program/`: programs (OpenCL C through `clc`, SPIR-V directly), build logs.
//! - `command/`: commands as data ([`command::Op`]) and command buffers of them.
//! - `kernel`: kernels, argument values, the argument block.
//! - `executor`: the persistent worker pool that runs an NDRange as chunks of work-groups.
//! - `switches`: every `FERRITE_*` environment variable (printed by `ferrite-info`).

pub mod api;
pub mod check;
pub mod command;
pub mod context;
pub mod device;
pub mod error;
pub mod event;
pub mod executor;
pub mod fault;
pub mod kernel;
pub mod mem;
pub mod platform;
pub mod program;
pub mod queue;
pub mod sampler;
pub mod switches;
pub mod usm;
pub mod ze;

pub use error::{Error, Result};
