//! Samplers: how a kernel's `read_image*` with a sampler finds and filters pixels. The
//! object only records the state; the sampling itself belongs to the compiled kernels'
//! image library.

use crate::api::{api_type, ApiObject, ObjectType};
use crate::context::Context;
use std::sync::Arc;

/// What happens to coordinates outside the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressingMode {
    /// The kernel promises coordinates stay inside.
    None,
    ClampToEdge,
    /// Outside is the border colour.
    Clamp,
    /// Normalised coordinates only.
    Repeat,
    /// Normalised coordinates only.
    MirroredRepeat,
}

/// How pixels are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterMode {
    Nearest,
    Linear,
}

/// A sampler's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerState {
    pub normalized_coords: bool,
    pub addressing: AddressingMode,
    pub filter: FilterMode,
}

#[repr(C)]
pub struct Sampler {
    pub api: ApiObject,
    pub context: Arc<Context>,
    pub state: SamplerState,
    /// The property list as given (zero-terminated), or empty (`CL_SAMPLER_PROPERTIES`).
    pub properties: Vec<u64>,
}
api_type!(Sampler, Sampler);

impl SamplerState {
    /// The value a kernel's sampler argument holds (`ferrite_compiler::image::sampler_bits`).
    pub fn bits(&self) -> u64 {
        use ferrite_compiler::image as k;
        let addressing = match self.addressing {
            AddressingMode::None => k::ADDRESS_NONE,
            AddressingMode::ClampToEdge => k::ADDRESS_CLAMP_TO_EDGE,
            AddressingMode::Clamp => k::ADDRESS_CLAMP,
            AddressingMode::Repeat => k::ADDRESS_REPEAT,
            AddressingMode::MirroredRepeat => k::ADDRESS_MIRRORED_REPEAT,
        };
        k::sampler_bits(
            self.normalized_coords,
            addressing,
            self.filter == FilterMode::Linear,
        )
    }
}

impl Sampler {
    pub fn new(context: &Arc<Context>, state: SamplerState, properties: Vec<u64>) -> Arc<Sampler> {
        Arc::new(Sampler {
            api: ApiObject::new(ObjectType::Sampler),
            context: context.clone(),
            state,
            properties,
        })
    }
}
