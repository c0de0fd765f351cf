//! Modules (SPIR-V in, every kernel compiled at build time) and build logs.
#![expect(non_snake_case, reason = "entry points keep their Level-Zero names")]

use super::sys::*;
use super::{
    check, context, device, handle, input, string_out, write_out, ze_call, ZeError, ZeResult,
};
use ferrite_runtime::ze::module::{spec_constant_sizes, ZeModule};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::sync::Arc;

/// The object behind `ze_module_handle_t`.
pub struct Module {
    pub rt: ZeModule,
    /// Kernel names for `zeModuleGetKernelNames`, alive as long as the module.
    names: Vec<CString>,
}

/// The object behind `ze_module_build_log_handle_t`.
pub struct BuildLog(String);

pub fn get(h: ze_module_handle_t) -> ZeResult<Arc<Module>> {
    handle::get::<Module, _>(h)
}

/// Read the specialisation constants: each value has the size of its constant's type,
/// known from the module.
///
/// # Safety
/// `constants` must be valid as the API describes (`numConstants` ids and value
/// pointers, each value readable for its constant's size).
unsafe fn read_spec_constants(
    constants: &ze_module_constants_t,
    spirv: &[u8],
) -> ZeResult<HashMap<u32, u64>> {
    let mut out = HashMap::new();
    let n = constants.numConstants;
    if n == 0 {
        return Ok(out);
    }
    // SAFETY: per the caller, `n` ids and `n` value pointers.
    let (ids, values) = unsafe {
        (
            super::slice_in(constants.pConstantIds, n)?,
            super::slice_in(
                constants.pConstantValues as *const *const std::ffi::c_void,
                n,
            )?,
        )
    };
    let sizes = spec_constant_sizes(spirv);
    for (&id, &value) in ids.iter().zip(values) {
        // A constant the module does not have: nothing to specialise.
        let Some(&ty) = sizes.get(&id) else {
            continue;
        };
        check(!value.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        let mut bytes = [0u8; 8];
        let size = ty.size.min(8);
        // SAFETY: `value` points to a value of the constant's type, `size` bytes
        // (caller's contract); `bytes` is a local of 8 >= size bytes.
        unsafe { std::ptr::copy_nonoverlapping(value.cast::<u8>(), bytes.as_mut_ptr(), size) };
        let bits = if ty.is_bool {
            u64::from(bytes[0] != 0)
        } else {
            u64::from_le_bytes(bytes)
        };
        out.insert(id, bits);
    }
    Ok(out)
}

pub(super) unsafe extern "C" fn zeModuleCreate(
    h_context: ze_context_handle_t,
    h_device: ze_device_handle_t,
    desc: *const ze_module_desc_t,
    ph_module: *mut ze_module_handle_t,
    ph_build_log: *mut ze_module_build_log_handle_t,
) -> ze_result_t {
    ze_call(|| {
        context::get(h_context)?;
        device::get(h_device)?;
        // SAFETY: NULL or a valid descriptor (API contract).
        let desc = unsafe { input(desc)? };
        check(
            !desc.pInputModule.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        check(!ph_module.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // ZE_RESULT_ERROR_INVALID_ENUMERATION: ZE_MODULE_FORMAT_NATIVE < desc->format
        check(
            desc.format <= ZE_MODULE_FORMAT_NATIVE,
            ZE_RESULT_ERROR_INVALID_ENUMERATION,
        )?;
        // ZE_RESULT_ERROR_INVALID_SIZE: 0 == desc->inputSize
        check(desc.inputSize != 0, ZE_RESULT_ERROR_INVALID_SIZE)?;
        // SAFETY: pInputModule points to inputSize bytes (API contract).
        let input = unsafe { std::slice::from_raw_parts(desc.pInputModule, desc.inputSize) };
        // A native binary is what zeModuleGetNativeBinary gave: SPIR-V and the
        // specialisation constants it was built with.
        let (spirv, native_spec) = if desc.format == ZE_MODULE_FORMAT_NATIVE {
            let (spirv, spec) = ZeModule::parse_native(input)
                .map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY))?;
            (spirv, Some(spec))
        } else {
            (input, None)
        };
        let options = if desc.pBuildFlags.is_null() {
            String::new()
        } else {
            // SAFETY: a non-NULL pBuildFlags is a NUL-terminated string (API contract).
            unsafe { CStr::from_ptr(desc.pBuildFlags) }
                .to_string_lossy()
                .into_owned()
        };
        let spec = if let Some(spec) = native_spec {
            spec
        } else if desc.pConstants.is_null() {
            HashMap::new()
        } else {
            // SAFETY: a non-NULL pConstants is a valid ze_module_constants_t whose
            // values have their constants' types (API contract).
            unsafe { read_spec_constants(&*desc.pConstants, spirv)? }
        };
        let (result, log) = match ZeModule::build(spirv, &spec, &options) {
            Ok(rt) => {
                let log = rt.build_log.clone();
                let names = rt
                    .kernel_names()
                    .map(|n| CString::new(n).unwrap_or_default())
                    .collect();
                let h: ze_module_handle_t = handle::insert(Arc::new(Module { rt, names }));
                // SAFETY: non-NULL, valid for writes (API contract).
                unsafe { write_out(ph_module, h)? };
                (Ok(ZE_RESULT_SUCCESS), log)
            }
            Err(failed) => {
                // SAFETY: as above.
                unsafe { write_out(ph_module, std::ptr::null_mut())? };
                (Err(ZeError::from(failed.error)), failed.log)
            }
        };
        if !ph_build_log.is_null() {
            let h: ze_module_build_log_handle_t = handle::insert(Arc::new(BuildLog(log)));
            // SAFETY: non-NULL optional output (API contract).
            unsafe { write_out(ph_build_log, h)? };
        }
        result
    })
}

pub(super) unsafe extern "C" fn zeModuleDestroy(h_module: ze_module_handle_t) -> ze_result_t {
    ze_call(|| {
        handle::remove::<Module, _>(h_module)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleGetKernelNames(
    h_module: ze_module_handle_t,
    p_count: *mut u32,
    p_names: *mut *const c_char,
) -> ze_result_t {
    ze_call(|| {
        let m = get(h_module)?;
        // The strings live in the module, which the application keeps alive while it
        // uses them.
        let names: Vec<*const c_char> = m.names.iter().map(|n| n.as_ptr()).collect();
        // SAFETY: pCount valid, pNames NULL or an array of *pCount (API contract).
        unsafe { super::fill_array(p_count, p_names, &names)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleGetProperties(
    h_module: ze_module_handle_t,
    props: *mut ze_module_properties_t,
) -> ze_result_t {
    ze_call(|| {
        get(h_module)?;
        // SAFETY: NULL or the application's struct (API contract).
        let p = unsafe { super::output(props)? };
        // No imports: modules are never linked.
        p.flags = 0;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleBuildLogDestroy(
    h_log: ze_module_build_log_handle_t,
) -> ze_result_t {
    ze_call(|| {
        handle::remove::<BuildLog, _>(h_log)?;
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleBuildLogGetString(
    h_log: ze_module_build_log_handle_t,
    p_size: *mut usize,
    p_build_log: *mut c_char,
) -> ze_result_t {
    ze_call(|| {
        let log = handle::get::<BuildLog, _>(h_log)?;
        // SAFETY: pSize valid, pBuildLog NULL or *pSize bytes (API contract).
        unsafe { string_out(p_size, p_build_log, &log.0)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleDynamicLink(
    n_modules: u32,
    ph_modules: *mut ze_module_handle_t,
    ph_link_log: *mut ze_module_build_log_handle_t,
) -> ze_result_t {
    ze_call(|| {
        check(!ph_modules.is_null(), ZE_RESULT_ERROR_INVALID_NULL_POINTER)?;
        // SAFETY: phModules points to numModules handles (API contract).
        let modules = unsafe { handle::get_list::<Module, _>(ph_modules, n_modules)? };
        // The compiler accepts no module with imports, so every module is complete:
        // linking has nothing to resolve.
        let log = format!(
            "{} module(s) linked: no imports to resolve\n",
            modules.len()
        );
        if !ph_link_log.is_null() {
            let h: ze_module_build_log_handle_t = handle::insert(Arc::new(BuildLog(log)));
            // SAFETY: non-NULL optional output (API contract).
            unsafe { write_out(ph_link_log, h)? };
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeModuleInspectLinkageExt` (`ZE_extension_linkage_inspection`): a log listing, as the
/// flags ask, the modules' imports, the imports no module of the set exports, and the
/// exports. (A module with imports does not build, so the import lists are empty today.)
pub(super) unsafe extern "C" fn zeModuleInspectLinkageExt(
    p_inspect_desc: *mut ze_linkage_inspection_ext_desc_t,
    n_modules: u32,
    ph_modules: *mut ze_module_handle_t,
    ph_log: *mut ze_module_build_log_handle_t,
) -> ze_result_t {
    ze_call(|| {
        check(
            !p_inspect_desc.is_null() && !ph_modules.is_null() && !ph_log.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // SAFETY: a non-NULL descriptor (API contract).
        let flags = unsafe { (*p_inspect_desc).flags };
        check(flags <= 0x7, ZE_RESULT_ERROR_INVALID_ENUMERATION)?;
        // SAFETY: phModules points to numModules handles (API contract).
        let modules = unsafe { handle::get_list::<Module, _>(ph_modules, n_modules)? };
        let (mut imports, mut exports) = (Vec::new(), Vec::new());
        for m in &modules {
            let (i, e) = m.rt.linkage();
            imports.extend(i);
            exports.extend(e);
        }
        imports.sort();
        imports.dedup();
        exports.sort();
        exports.dedup();
        let mut log = String::new();
        let mut list = |title: &str, names: &[String]| {
            log.push_str(title);
            log.push('\n');
            for n in names {
                log.push_str(n);
                log.push('\n');
            }
        };
        if flags & ZE_LINKAGE_INSPECTION_EXT_FLAG_IMPORTS != 0 {
            list("Import Symbol Names:", &imports);
        }
        if flags & ZE_LINKAGE_INSPECTION_EXT_FLAG_UNRESOLVABLE_IMPORTS != 0 {
            let unresolved: Vec<String> = imports
                .iter()
                .filter(|i| exports.binary_search(i).is_err())
                .cloned()
                .collect();
            list("Unresolvable Import Symbol Names:", &unresolved);
        }
        if flags & ZE_LINKAGE_INSPECTION_EXT_FLAG_EXPORTS != 0 {
            list("Export Symbol Names:", &exports);
        }
        let h: ze_module_build_log_handle_t = handle::insert(Arc::new(BuildLog(log)));
        // SAFETY: a non-NULL output (API contract).
        unsafe { write_out(ph_log, h)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleGetNativeBinary(
    h_module: ze_module_handle_t,
    p_size: *mut usize,
    p_binary: *mut u8,
) -> ze_result_t {
    ze_call(|| {
        let m = get(h_module)?;
        // SAFETY: pSize is NULL or valid for reads and writes (API contract).
        let size = unsafe { super::output(p_size)? };
        let bin = m.rt.native_binary();
        if p_binary.is_null() {
            *size = bin.len();
            return Ok(ZE_RESULT_SUCCESS);
        }
        // A buffer too small for the whole binary would hold a useless prefix.
        check(*size >= bin.len(), ZE_RESULT_ERROR_INVALID_SIZE)?;
        // SAFETY: pModuleNativeBinary holds *pSize >= bin.len() bytes (API contract);
        // `bin` is our own vector.
        unsafe { std::ptr::copy_nonoverlapping(bin.as_ptr(), p_binary, bin.len()) };
        *size = bin.len();
        Ok(ZE_RESULT_SUCCESS)
    })
}

/// `zeModuleGetFunctionPointer`: the address of a function the module exports (or
/// names), for kernels to call through `OpFunctionPointerCallINTEL`
/// (`SPV_INTEL_function_pointers`). One that only a kernel could run (it reaches a
/// barrier, `__local` variables, `printf`, private memory) is
/// `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE`.
pub(super) unsafe extern "C" fn zeModuleGetFunctionPointer(
    h_module: ze_module_handle_t,
    p_function_name: *const c_char,
    pfn_function: *mut *mut std::ffi::c_void,
) -> ze_result_t {
    ze_call(|| {
        let m = get(h_module)?;
        check(
            !p_function_name.is_null() && !pfn_function.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // SAFETY: pFunctionName is a NUL-terminated string (API contract), checked non-NULL.
        let name = unsafe { CStr::from_ptr(p_function_name) };
        let name = name
            .to_str()
            .map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME))?;
        let addr =
            m.rt.function_pointer(name)
                .map_err(|_| ZeError(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE))?
                .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME))?;
        // SAFETY: non-NULL, valid for writes (API contract).
        unsafe { write_out(pfn_function, addr as *mut std::ffi::c_void)? };
        Ok(ZE_RESULT_SUCCESS)
    })
}

pub(super) unsafe extern "C" fn zeModuleGetGlobalPointer(
    h_module: ze_module_handle_t,
    p_global_name: *const c_char,
    p_size: *mut usize,
    pptr: *mut *mut std::ffi::c_void,
) -> ze_result_t {
    ze_call(|| {
        let m = get(h_module)?;
        check(
            !p_global_name.is_null(),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER,
        )?;
        // SAFETY: pGlobalName is a NUL-terminated string (API contract), checked non-NULL.
        let name = unsafe { CStr::from_ptr(p_global_name) };
        let name = name
            .to_str()
            .map_err(|_| ZeError(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME))?;
        let var =
            m.rt.global_variable(name)
                .ok_or(ZeError(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME))?;
        // The storage belongs to the module, which the application keeps alive while it
        // uses the pointer.
        if !p_size.is_null() {
            // SAFETY: non-NULL optional output (API contract).
            unsafe { write_out(p_size, var.size)? };
        }
        if !pptr.is_null() {
            // SAFETY: non-NULL optional output (API contract).
            unsafe { write_out(pptr, var.addr as *mut std::ffi::c_void)? };
        }
        Ok(ZE_RESULT_SUCCESS)
    })
}
