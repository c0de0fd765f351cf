//! Sampler entry points: `clCreateSampler` (1.x), `clCreateSamplerWithProperties`,
//! `clGetSamplerInfo`, retain and release. The object (`runtime/src/sampler.rs`) only
//! records the state; like images, samplers are offered unless `FERRITE_IMAGES=0` hides
//! them.

use super::handle::{self, get};
use super::info::{cl_bool, info, write_info};
use super::{check, cl_call, cl_create};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::mem::image;
use ferrite_runtime::sampler::{AddressingMode, FilterMode, Sampler, SamplerState};
use opencl_sys::*;
use std::ffi::c_void;

const ADDRESSING: &[(cl_addressing_mode, AddressingMode)] = &[
    (CL_ADDRESS_NONE, AddressingMode::None),
    (CL_ADDRESS_CLAMP_TO_EDGE, AddressingMode::ClampToEdge),
    (CL_ADDRESS_CLAMP, AddressingMode::Clamp),
    (CL_ADDRESS_REPEAT, AddressingMode::Repeat),
    (CL_ADDRESS_MIRRORED_REPEAT, AddressingMode::MirroredRepeat),
];

const FILTERS: &[(cl_filter_mode, FilterMode)] = &[
    (CL_FILTER_NEAREST, FilterMode::Nearest),
    (CL_FILTER_LINEAR, FilterMode::Linear),
];

/// The runtime's state from the API's three values, `CL_INVALID_VALUE` if one is not valid.
fn state(normalized: cl_bool, addressing: u64, filter: u64) -> ClResult<SamplerState> {
    // CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords or a combination
    // of these arguments are not valid.
    check(
        normalized == CL_TRUE || normalized == CL_FALSE,
        CL_INVALID_VALUE,
    )?;
    let addressing = ADDRESSING
        .iter()
        .find(|(c, _)| u64::from(*c) == addressing)
        .ok_or(ClError(CL_INVALID_VALUE))?
        .1;
    let filter = FILTERS
        .iter()
        .find(|(c, _)| u64::from(*c) == filter)
        .ok_or(ClError(CL_INVALID_VALUE))?
        .1;
    Ok(SamplerState {
        normalized_coords: normalized == CL_TRUE,
        addressing,
        filter,
    })
}

fn new_sampler(
    context: cl_context,
    st: SamplerState,
    properties: Vec<u64>,
) -> ClResult<cl_sampler> {
    let ctx = get::<Context>(context)?;
    // CL_INVALID_OPERATION if images are not supported by any device associated with
    // context.
    check(image::enabled(), CL_INVALID_OPERATION)?;
    Ok(handle::new_handle(Sampler::new(&ctx, st, properties)))
}

pub unsafe extern "C" fn create_sampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        get::<Context>(context)?;
        let st = state(
            normalized_coords,
            u64::from(addressing_mode),
            u64::from(filter_mode),
        )?;
        new_sampler(context, st, Vec::new())
    })
}

pub unsafe extern "C" fn create_sampler_with_properties(
    context: cl_context,
    sampler_properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    cl_create(errcode_ret, || {
        // CL_INVALID_CONTEXT if context is not a valid context.
        get::<Context>(context)?;
        // Defaults: normalised coordinates, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST.
        let (mut normalized, mut addressing, mut filter) = (
            u64::from(CL_TRUE),
            u64::from(CL_ADDRESS_CLAMP),
            u64::from(CL_FILTER_NEAREST),
        );
        let mut list = Vec::new();
        if !sampler_properties.is_null() {
            let mut seen = Vec::new();
            let mut p = sampler_properties;
            loop {
                // SAFETY: the list is zero-terminated (API contract).
                let name = unsafe { *p };
                if name == 0 {
                    break;
                }
                // SAFETY: every non-zero name is followed by its value.
                let value = unsafe { *p.add(1) };
                // CL_INVALID_VALUE if the property name in sampler_properties is not a
                // supported property name, if the value specified for a supported
                // property name is not valid, or if the same property name is specified
                // more than once.
                check(!seen.contains(&name), CL_INVALID_VALUE)?;
                seen.push(name);
                match name as cl_sampler_info {
                    CL_SAMPLER_NORMALIZED_COORDS => normalized = value,
                    CL_SAMPLER_ADDRESSING_MODE => addressing = value,
                    CL_SAMPLER_FILTER_MODE => filter = value,
                    _ => return Err(ClError(CL_INVALID_VALUE)),
                }
                list.extend([name, value]);
                // SAFETY: advancing past the pair just read.
                p = unsafe { p.add(2) };
            }
            list.push(0);
        }
        let normalized = cl_bool::try_from(normalized).map_err(|_| ClError(CL_INVALID_VALUE))?;
        let st = state(normalized, addressing, filter)?;
        new_sampler(context, st, list)
    })
}

pub unsafe extern "C" fn retain_sampler(sampler: cl_sampler) -> cl_int {
    cl_call(|| handle::retain::<Sampler>(sampler))
}

pub unsafe extern "C" fn release_sampler(sampler: cl_sampler) -> cl_int {
    cl_call(|| handle::release::<Sampler>(sampler))
}

pub unsafe extern "C" fn get_sampler_info(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_SAMPLER if sampler is a not a valid sampler object.
        let s = get::<Sampler>(sampler)?;
        let st = s.state;
        let v = match param_name {
            CL_SAMPLER_REFERENCE_COUNT => info(&s.api.ref_count()),
            CL_SAMPLER_CONTEXT => info(&handle::handle(&s.context)),
            CL_SAMPLER_NORMALIZED_COORDS => info(&cl_bool(st.normalized_coords)),
            CL_SAMPLER_ADDRESSING_MODE => info(
                &ADDRESSING
                    .iter()
                    .find(|(_, a)| *a == st.addressing)
                    .map_or(0, |(c, _)| *c),
            ),
            CL_SAMPLER_FILTER_MODE => info(
                &FILTERS
                    .iter()
                    .find(|(_, f)| *f == st.filter)
                    .map_or(0, |(c, _)| *c),
            ),
            CL_SAMPLER_PROPERTIES => info(&s.properties),
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}
