//! Kernels: argument values, group sizes and properties. The argument block and the
//! launch snapshot live in `ferrite_runtime::ze::kernel`.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::sys_next::{
    ze_kernel_max_group_size_properties_ext_t,
    ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES,
};
use super::{
    check, handle, input, module, output, string_out, write_out, ze_call, ZeError, ZeResult,
};
use ferrite_runtime::device as rt;
use ferrite_runtime::ze::kernel::{ArgInput, ZeKernel};
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// The object behind `ze_kernel_handle_t`.
pub struct Kernel {
    pub rt: ZeKernel,
    /// `zeKernelSetIndirectAccess` flags (every allocation is reachable anyway).
    indirect: AtomicU32,
}

pub fn get(h: ze_kernel_handle_t) -> ZeResult<Arc<Kernel>> {
    handle::get::<Kernel, _>(h)
}

pub(super) unsafe extern "C" fn zeKernelCreate(
    h_module: ze_module_handle_t,
    desc: *const ze_kernel_desc_t,
    ph_kernel: *mut ze_kernel_handle_t,
) -> ze_result_t {
    ze_call(|| {
        let m = module::get(h_module)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(
            !desc.pKernelName.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        check(!ph_kernel.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < desc->flags
        check(desc.flags <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        // SAFETY: pKernelName is a NUL-terminated string (API contract).
        let name = unsafe { CStr::from_ptr(desc.pKernelName) };
        let compiled = name
            .to_str()
            .ok()
            .and_then(|n| m.rt.kernel(n))
            .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_KERNEL_NAME))?;
        let k = Arc::new(Kernel {
            rt: ZeKernel::new(compiled.clone()),
            indirect: AtomicU32::new(0),
        });
        let h: ze_kernel_handle_t = handle::insert(k);
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(ph_kernel, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelDestroy(h_kernel: ze_kernel_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<Kernel, _>(h_kernel)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// Whether `size` is a group size the device and the kernel accept.
fn group_size_ok(k: &Kernel, size: [u32; 3]) -> bool {
    let total = size.iter().map(|&s| u64::from(s)).product::<u64>();
    let fits = size
        .iter()
        .zip(rt::MAX_WORK_ITEM_SIZES)
        .all(|(&s, max)| s >= 1 && s as usize <= max);
    let required = k.rt.info().reqd_work_group_size.is_none_or(|r| r == size);
    fits && total <= rt::MAX_WORK_GROUP_SIZE as u64 && required
}

pub(super) unsafe extern "C" fn zeKernelSetGroupSize(
    h_kernel: ze_kernel_handle_t,
    x: u32,
    y: u32,
    z: u32,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        // ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION: a size the device cannot run,
        // or not the kernel's required size.
        check(
            group_size_ok(&k, [x, y, z]),
            ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
        )?;
        k.rt.set_group_size([x, y, z]);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelSuggestGroupSize(
    h_kernel: ze_kernel_handle_t,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    out_x: *mut u32,
    out_y: *mut u32,
    out_z: *mut u32,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        check(
            !out_x.is_null() && !out_y.is_null() && !out_z.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION: a global size of 0.
        check(
            global_x != 0 && global_y != 0 && global_z != 0,
            ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION,
        )?;
        let [x, y, z] = k.rt.suggest_group_size([global_x, global_y, global_z]);
        // SAFETY: all three are non-NULL and valid for writes (API contract).
        unsafe {
            write_out(out_x, x)?;
            write_out(out_y, y)?;
            write_out(out_z, z)?;
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelSetArgumentValue(
    h_kernel: ze_kernel_handle_t,
    index: u32,
    size: usize,
    value: *const c_void,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        let args = &k.rt.info().args;
        let desc = args
            .get(index as usize)
            .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX))?;
        // An image or a sampler: `pArgValue` points to its handle.
        let image_or_sampler = matches!(
            desc.kind,
            ferrite_compiler::ArgKind::Image | ferrite_compiler::ArgKind::Sampler
        );
        if image_or_sampler {
            check(!value.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
            check(
                size == std::mem::size_of::<*mut c_void>(),
                ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
            )?;
            // SAFETY: pArgValue points to a handle of argSize (= pointer) bytes (API
            // contract, size checked above).
            let h = unsafe { value.cast::<*mut c_void>().read_unaligned() };
            if matches!(desc.kind, ferrite_compiler::ArgKind::Image) {
                let image = super::image::get(h.cast())?;
                k.rt.set_arg(index as usize, ArgInput::Image(&image.mem))?;
            } else {
                let sampler = super::image::get_sampler(h.cast())?;
                k.rt.set_arg(index as usize, ArgInput::Sampler(sampler.state.bits()))?;
            }
            return Ok(ZE_RESULT_SUCCESS);
        }
        if matches!(desc.kind, ferrite_compiler::ArgKind::Local) || value.is_null() {
            // `__local`: only the size matters; the value is ignored. A NULL value for
            // anything else is the runtime's to refuse (or a NULL pointer argument).
            k.rt.set_arg(index as usize, ArgInput::Null(size))?;
            return Ok(ZE_RESULT_SUCCESS);
        }
        let want = match desc.kind {
            ferrite_compiler::ArgKind::Value { size } => size,
            _ => std::mem::size_of::<*mut c_void>(),
        };
        // A by-value argument is taken as Intel's driver takes it: its first bytes, as
        // many as the parameter has, zero-extended if it is shorter (level-zero-tests pass
        // a `uint32_t` for a `size_t` and a `size_t` for an `int`; little-endian, so the
        // value is the same while it fits). An empty value, and a pointer of another size,
        // are refused. Never read more than argSize bytes of the application's value.
        let by_value = matches!(desc.kind, ferrite_compiler::ArgKind::Value { .. });
        check(
            size == want || (by_value && size > 0),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
        )?;
        let take = size.min(want);
        // SAFETY: pArgValue points to argSize bytes (API contract); `take` is at most that.
        let given = unsafe { std::slice::from_raw_parts(value.cast::<u8>(), take) };
        if take == want {
            k.rt.set_arg(index as usize, ArgInput::Bytes(given))?;
        } else {
            // Only a short value needs a zero-extended copy.
            let mut bytes = vec![0u8; want];
            bytes[..take].copy_from_slice(given);
            k.rt.set_arg(index as usize, ArgInput::Bytes(&bytes))?;
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelSetIndirectAccess(
    h_kernel: ze_kernel_handle_t,
    flags: ze_kernel_indirect_access_flags_t,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x7 < flags
        check(flags <= 0x7, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        k.indirect.store(flags, Ordering::Relaxed);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelGetIndirectAccess(
    h_kernel: ze_kernel_handle_t,
    flags: *mut ze_kernel_indirect_access_flags_t,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        // SAFETY: NULL or valid for writes (API contract).
        unsafe { write_out(flags, k.indirect.load(Ordering::Relaxed))? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelSetCacheConfig(
    h_kernel: ze_kernel_handle_t,
    flags: ze_cache_config_flags_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_kernel)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: 0x3 < flags
        check(flags <= 0x3, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        // A hint about GPU caches: nothing to do on a CPU.
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelGetProperties(
    h_kernel: ze_kernel_handle_t,
    props: *mut ze_kernel_properties_t,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        // SAFETY: NULL or the application's struct (API contract).
        let p = unsafe { output(props)? };
        let info = k.rt.info();
        let [rx, ry, rz] = info.reqd_work_group_size.unwrap_or([0; 3]);
        p.numKernelArgs = info.args.len() as u32;
        p.requiredGroupSizeX = rx;
        p.requiredGroupSizeY = ry;
        p.requiredGroupSizeZ = rz;
        p.requiredNumSubGroups = 0;
        // The size the kernel asked for (0: none), and the size it runs with; as many
        // sub-groups as the kernel's largest group holds.
        p.requiredSubgroupSize = info.reqd_sub_group_size.unwrap_or(0);
        p.maxSubgroupSize = info.sub_group_size;
        let max_group = match info.reqd_work_group_size {
            Some(r) => r.iter().product::<u32>(),
            None => rt::MAX_WORK_GROUP_SIZE as u32,
        };
        p.maxNumSubgroups = max_group.div_ceil(info.sub_group_size);
        p.localMemSize = k.rt.compiled.static_local_size as u32;
        p.privateMemSize = k.rt.compiled.private_size as u32;
        p.spillMemSize = 0;
        p.uuid.kid = [0; 16];
        p.uuid.mid = [0; 16];
        // Extension structs the application chained
        // (ZE_extension_kernel_max_group_size_properties).
        // SAFETY: the application's chain (API contract).
        unsafe {
            super::for_each_ext(
                p.pNext,
                ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES,
                |m: &mut ze_kernel_max_group_size_properties_ext_t| m.maxGroupSize = max_group,
            )
        };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelGetName(
    h_kernel: ze_kernel_handle_t,
    p_size: *mut usize,
    p_name: *mut c_char,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        // SAFETY: pSize valid, pName NULL or *pSize bytes (API contract).
        unsafe { string_out(p_size, p_name, &k.rt.info().name)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelSetGlobalOffsetExp(
    h_kernel: ze_kernel_handle_t,
    offset_x: u32,
    offset_y: u32,
    offset_z: u32,
) -> ze_result_t {
    ze_call(|| {
        get(h_kernel)?
            .rt
            .set_global_offset([offset_x, offset_y, offset_z]);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelGetSourceAttributes(
    h_kernel: ze_kernel_handle_t,
    p_size: *mut u32,
    p_string: *mut *mut c_char,
) -> ze_result_t {
    ze_call(|| {
        let k = get(h_kernel)?;
        // SAFETY: pSize is NULL or valid for reads and writes (API contract).
        let size = unsafe { output(p_size)? };
        let attrs = &k.rt.info().attributes;
        // "If NULL, the string length of the kernel source attributes, including a
        // null-terminator, is returned in pSize. Otherwise, pString must point to valid
        // application memory that is greater than or equal to *pSize bytes in length"
        let buf = if p_string.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: a non-NULL pString points to the application's buffer pointer.
            unsafe { *p_string }
        };
        let mut n = *size as usize;
        // SAFETY: `buf` is NULL or holds *pSize bytes (API contract).
        unsafe { string_out(&mut n, buf, attrs)? };
        *size = u32::try_from(n).unwrap_or(u32::MAX);
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeKernelSuggestMaxCooperativeGroupCount(
    h_kernel: ze_kernel_handle_t,
    total_group_count: *mut u32,
) -> ze_result_t {
    ze_call(|| {
        get(h_kernel)?;
        let n = ferrite_runtime::executor::max_cooperative_groups();
        // SAFETY: NULL or writable (API contract).
        unsafe { write_out(total_group_count, n)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}
