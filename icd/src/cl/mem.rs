//! Memory-object entry points: buffers, and the queries every memory object answers
//! (images are created in `image.rs`).

use super::handle::{self, get};
use super::info::{cl_bool, info, write_info};
use super::{check, cl_call, cl_create, SendPtr};
use crate::error::{ClError, ClResult};
use ferrite_runtime::context::Context;
use ferrite_runtime::device::MEM_BASE_ADDR_ALIGN;
use ferrite_runtime::mem::buffer::{self, BufferDesc, SubBufferDesc};
use ferrite_runtime::mem::{Mem, MemFlags, MemType};
use opencl_sys::*;
use std::ffi::c_void;

const ACCESS_BITS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_ACCESS_BITS: cl_mem_flags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
const HOST_PTR_BITS: cl_mem_flags =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;
/// Flags valid for a buffer.
const BUFFER_BITS: cl_mem_flags = ACCESS_BITS | HOST_ACCESS_BITS | HOST_PTR_BITS;

/// Validate `clCreateBuffer` flags against `host_ptr`; the runtime's view of them.
pub fn buffer_flags(flags: cl_mem_flags, has_host_ptr: bool) -> ClResult<MemFlags> {
    // CL_INVALID_VALUE if values specified in flags are not valid as defined in the Memory
    // Flags table.
    check(flags & !BUFFER_BITS == 0, CL_INVALID_VALUE)?;
    // At most one device access mode, at most one host access mode.
    check((flags & ACCESS_BITS).count_ones() <= 1, CL_INVALID_VALUE)?;
    check(
        (flags & HOST_ACCESS_BITS).count_ones() <= 1,
        CL_INVALID_VALUE,
    )?;
    // CL_MEM_USE_HOST_PTR and CL_MEM_ALLOC_HOST_PTR / CL_MEM_COPY_HOST_PTR are mutually
    // exclusive.
    if flags & CL_MEM_USE_HOST_PTR != 0 {
        check(
            flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) == 0,
            CL_INVALID_VALUE,
        )?;
    }
    // CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags.
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    check(wants_ptr == has_host_ptr, CL_INVALID_HOST_PTR)?;
    Ok(MemFlags {
        device_read: flags & CL_MEM_WRITE_ONLY == 0,
        device_write: flags & CL_MEM_READ_ONLY == 0,
        host_read: flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) == 0,
        host_write: flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) == 0,
        use_host_ptr: flags & CL_MEM_USE_HOST_PTR != 0,
        copy_host_ptr: flags & CL_MEM_COPY_HOST_PTR != 0,
        alloc_host_ptr: flags & CL_MEM_ALLOC_HOST_PTR != 0,
    })
}

fn new_buffer(
    context: cl_context,
    properties: Vec<u64>,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    // CL_INVALID_CONTEXT if context is not a valid context.
    let ctx = get::<Context>(context)?;
    let mem_flags = buffer_flags(flags, !host_ptr.is_null())?;
    // CL_INVALID_BUFFER_SIZE if size is 0, or if size is greater than
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE for all devices in context.
    let max = ctx
        .devices
        .iter()
        .map(|d| d.max_mem_alloc_size)
        .max()
        .unwrap_or(0);
    check(size > 0 && size as u64 <= max, CL_INVALID_BUFFER_SIZE)?;
    // CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR is set in flags and host_ptr is a
    // pointer returned by clSVMAlloc and size is greater than the size passed to clSVMAlloc.
    if flags & CL_MEM_USE_HOST_PTR != 0 {
        if let Some(a) = ferrite_runtime::mem::svm::find(host_ptr as usize) {
            check(
                a.contains_range(host_ptr as usize, size),
                CL_INVALID_BUFFER_SIZE,
            )?;
        }
    }
    let desc = BufferDesc {
        flags: mem_flags,
        // Access defaults to CL_MEM_READ_WRITE.
        api_flags: if flags & ACCESS_BITS == 0 {
            flags | CL_MEM_READ_WRITE
        } else {
            flags
        },
        properties,
        size,
        host_ptr: host_ptr as *mut u8,
    };
    // SAFETY: with USE/COPY_HOST_PTR the application guarantees host_ptr points to size
    // bytes (valid for the buffer's life with USE_HOST_PTR): the API contract.
    let mem = unsafe { buffer::create(&ctx, desc) }?;
    Ok(handle::new_handle(mem))
}

pub unsafe extern "C" fn create_buffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    cl_create(errcode_ret, || {
        new_buffer(context, Vec::new(), flags, size, host_ptr)
    })
}

pub unsafe extern "C" fn create_buffer_with_properties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    cl_create(errcode_ret, || {
        get::<Context>(context)?;
        // SAFETY: a non-NULL list is zero-terminated (API contract).
        let list = unsafe { buffer_properties(properties) }?;
        new_buffer(context, list, flags, size, host_ptr)
    })
}

/// The property list of `clCreateBufferWithProperties`, as given (zero-terminated), or
/// empty for NULL. The one property: `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT`
/// (`cl_ext_buffer_device_address`), which every buffer could honour: device memory is
/// host memory at a fixed address ([`device_address`]).
///
/// # Safety
/// `properties` is NULL or a zero-terminated list of (name, value) pairs.
unsafe fn buffer_properties(properties: *const cl_mem_properties) -> ClResult<Vec<u64>> {
    let mut list = Vec::new();
    if properties.is_null() {
        return Ok(list);
    }
    let mut at = properties;
    loop {
        // SAFETY: the list is zero-terminated and `at` has not passed its end.
        let name = unsafe { *at };
        list.push(name);
        if name == 0 {
            return Ok(list);
        }
        // SAFETY: a non-zero name is followed by its value (API contract).
        let value = unsafe { *at.add(1) };
        // CL_INVALID_PROPERTY if a property name in properties is not a supported property
        // name, if the value specified for a supported property name is not valid, or if
        // the same property name is specified more than once.
        check(
            name == CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
            CL_INVALID_PROPERTY,
        )?;
        check(
            value == u64::from(CL_TRUE) || value == u64::from(CL_FALSE),
            CL_INVALID_PROPERTY,
        )?;
        check(
            !list
                .chunks(2)
                .any(|pair| pair.len() == 2 && pair[0] == name),
            CL_INVALID_PROPERTY,
        )?;
        list.push(value);
        // SAFETY: as above; the pair just read was not the terminator.
        at = unsafe { at.add(2) };
    }
}

/// `CL_MEM_DEVICE_ADDRESS_EXT`: the address kernels see, for a buffer created with
/// `CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT` set to `CL_TRUE` (or a sub-buffer of one); `None`
/// otherwise.
fn device_address(m: &Mem) -> Option<u64> {
    let root = std::iter::successors(Some(m), |m| m.parent.as_deref()).last()?;
    let asked = root
        .properties
        .chunks(2)
        .any(|p| p.len() == 2 && p[0] == CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT && p[1] != 0);
    asked.then(|| m.base() as u64)
}

/// The flags of a sub-buffer: `flags` checked against the parent's, the rest inherited.
pub fn sub_buffer_flags(parent: &Mem, flags: cl_mem_flags) -> ClResult<(MemFlags, cl_mem_flags)> {
    check(
        flags & !(ACCESS_BITS | HOST_ACCESS_BITS | HOST_PTR_BITS) == 0,
        CL_INVALID_VALUE,
    )?;
    check((flags & ACCESS_BITS).count_ones() <= 1, CL_INVALID_VALUE)?;
    check(
        (flags & HOST_ACCESS_BITS).count_ones() <= 1,
        CL_INVALID_VALUE,
    )?;
    let pf = parent.api_flags;
    // CL_INVALID_VALUE if buffer was created with CL_MEM_WRITE_ONLY and flags specifies
    // CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or if buffer was created with
    // CL_MEM_READ_ONLY and flags specifies CL_MEM_READ_WRITE or CL_MEM_WRITE_ONLY, or if
    // flags specifies CL_MEM_USE_HOST_PTR or CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR.
    if pf & CL_MEM_WRITE_ONLY != 0 {
        check(
            flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) == 0,
            CL_INVALID_VALUE,
        )?;
    }
    if pf & CL_MEM_READ_ONLY != 0 {
        check(
            flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) == 0,
            CL_INVALID_VALUE,
        )?;
    }
    check(flags & HOST_PTR_BITS == 0, CL_INVALID_VALUE)?;
    // CL_INVALID_VALUE if buffer was created with CL_MEM_HOST_WRITE_ONLY and flags specify
    // CL_MEM_HOST_READ_ONLY, or if buffer was created with CL_MEM_HOST_READ_ONLY and flags
    // specify CL_MEM_HOST_WRITE_ONLY, or if buffer was created with CL_MEM_HOST_NO_ACCESS
    // and flags specify CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_WRITE_ONLY.
    if pf & CL_MEM_HOST_WRITE_ONLY != 0 {
        check(flags & CL_MEM_HOST_READ_ONLY == 0, CL_INVALID_VALUE)?;
    }
    if pf & CL_MEM_HOST_READ_ONLY != 0 {
        check(flags & CL_MEM_HOST_WRITE_ONLY == 0, CL_INVALID_VALUE)?;
    }
    if pf & CL_MEM_HOST_NO_ACCESS != 0 {
        check(
            flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) == 0,
            CL_INVALID_VALUE,
        )?;
    }
    // If the CL_MEM_READ_WRITE, CL_MEM_READ_ONLY or CL_MEM_WRITE_ONLY values are not
    // specified in flags, they are inherited from the corresponding memory access
    // qualifiers associated with buffer. The CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR
    // and CL_MEM_COPY_HOST_PTR values ... are inherited. If the CL_MEM_HOST_WRITE_ONLY,
    // CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS values are not specified in flags,
    // they are inherited.
    let mut all = flags | (pf & HOST_PTR_BITS);
    if flags & ACCESS_BITS == 0 {
        all |= pf & ACCESS_BITS;
    }
    if flags & HOST_ACCESS_BITS == 0 {
        all |= pf & HOST_ACCESS_BITS;
    }
    Ok((
        MemFlags {
            device_read: all & CL_MEM_WRITE_ONLY == 0,
            device_write: all & CL_MEM_READ_ONLY == 0,
            host_read: all & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) == 0,
            host_write: all & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) == 0,
            use_host_ptr: all & CL_MEM_USE_HOST_PTR != 0,
            copy_host_ptr: all & CL_MEM_COPY_HOST_PTR != 0,
            alloc_host_ptr: all & CL_MEM_ALLOC_HOST_PTR != 0,
        },
        all,
    ))
}

pub unsafe extern "C" fn create_sub_buffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    buffer_create_type: cl_buffer_create_type,
    buffer_create_info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    cl_create(errcode_ret, || {
        // CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a sub-buffer
        // object.
        let parent = get::<Mem>(buffer)?;
        check(
            parent.mem_type == MemType::Buffer && parent.parent.is_none(),
            CL_INVALID_MEM_OBJECT,
        )?;
        let (mem_flags, api_flags) = sub_buffer_flags(&parent, flags)?;
        // CL_INVALID_VALUE if the value specified in buffer_create_type is not valid.
        check(
            buffer_create_type == CL_BUFFER_CREATE_TYPE_REGION,
            CL_INVALID_VALUE,
        )?;
        // CL_INVALID_VALUE if value(s) specified in buffer_create_info (for a given
        // buffer_create_type) is not valid or if buffer_create_info is NULL.
        check(!buffer_create_info.is_null(), CL_INVALID_VALUE)?;
        // SAFETY: a cl_buffer_region for CL_BUFFER_CREATE_TYPE_REGION (API contract).
        let region = unsafe { (buffer_create_info as *const cl_buffer_region).read_unaligned() };
        // CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region structure
        // passed in buffer_create_info is 0.
        check(region.size > 0, CL_INVALID_BUFFER_SIZE)?;
        // CL_INVALID_VALUE if the region specified by the cl_buffer_region structure
        // passed in buffer_create_info is out of bounds in buffer.
        check(
            region
                .origin
                .checked_add(region.size)
                .is_some_and(|end| end <= parent.size),
            CL_INVALID_VALUE,
        )?;
        // CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context associated
        // with buffer for which the origin field of the cl_buffer_region structure passed
        // in buffer_create_info is aligned to the CL_DEVICE_MEM_BASE_ADDR_ALIGN value.
        check(
            region.origin.is_multiple_of(MEM_BASE_ADDR_ALIGN),
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
        )?;
        let sub = buffer::create_sub(
            &parent,
            SubBufferDesc {
                flags: mem_flags,
                api_flags,
                offset: region.origin,
                size: region.size,
            },
        )?;
        Ok(handle::new_handle(sub))
    })
}

pub unsafe extern "C" fn get_pipe_info(
    pipe: cl_mem,
    _param_name: cl_pipe_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_MEM_OBJECT if pipe is a not a valid pipe object. (No device supports
        // pipes, so no memory object is one.)
        let _ = pipe;
        Err(ClError(CL_INVALID_MEM_OBJECT))
    })
}

pub unsafe extern "C" fn retain_mem_object(memobj: cl_mem) -> cl_int {
    cl_call(|| handle::retain::<Mem>(memobj))
}

pub unsafe extern "C" fn release_mem_object(memobj: cl_mem) -> cl_int {
    cl_call(|| handle::release::<Mem>(memobj))
}

pub unsafe extern "C" fn get_mem_object_info(
    memobj: cl_mem,
    param_name: cl_mem_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_MEM_OBJECT if memobj is a not a valid memory object.
        let m = get::<Mem>(memobj)?;
        let null = std::ptr::null_mut::<c_void>();
        let v = match param_name {
            CL_MEM_TYPE => info(&match m.mem_type {
                MemType::Buffer => CL_MEM_OBJECT_BUFFER,
                MemType::Image(kind) => super::image::kind_to_cl(kind),
            }),
            CL_MEM_FLAGS => info(&m.api_flags),
            CL_MEM_SIZE => info(&m.size),
            // If memobj is created with CL_MEM_USE_HOST_PTR, return the host_ptr argument
            // value specified when memobj is created. Otherwise, returns NULL. (For a
            // sub-buffer of such a buffer: the parent's host_ptr + origin.)
            CL_MEM_HOST_PTR => info(&if m.flags.use_host_ptr {
                m.host_ptr as *mut c_void
            } else {
                null
            }),
            CL_MEM_MAP_COUNT => info(&m.map_count()),
            CL_MEM_REFERENCE_COUNT => info(&m.api.ref_count()),
            CL_MEM_CONTEXT => info(&handle::handle(&m.context)),
            // The buffer a sub-buffer was created from, NULL otherwise.
            CL_MEM_ASSOCIATED_MEMOBJECT => info(&m.parent.as_ref().map_or(null, handle::handle)),
            CL_MEM_OFFSET => info(&m.offset),
            // CL_TRUE if memobj (or its parent) was created with CL_MEM_USE_HOST_PTR and
            // the host_ptr specified when it was created is an SVM pointer.
            CL_MEM_USES_SVM_POINTER => {
                info(&cl_bool(ferrite_runtime::mem::svm::uses_svm_pointer(&m)))
            }
            CL_MEM_PROPERTIES => info(&m.properties),
            // cl_ext_buffer_device_address: CL_INVALID_OPERATION if the buffer was not
            // created with CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT (nor its parent).
            CL_MEM_DEVICE_ADDRESS_EXT => {
                info(&device_address(&m).ok_or(ClError(CL_INVALID_OPERATION))?)
            }
            // CL_INVALID_VALUE if param_name is not valid.
            _ => return Err(ClError(CL_INVALID_VALUE)),
        };
        // SAFETY: the out-pointers follow the API contract.
        unsafe { write_info(&v, param_value_size, param_value, param_value_size_ret) }
    })
}

pub unsafe extern "C" fn set_mem_object_destructor_callback(
    memobj: cl_mem,
    pfn_notify: Option<unsafe extern "C" fn(memobj: cl_mem, user_data: *mut c_void)>,
    user_data: *mut c_void,
) -> cl_int {
    cl_call(|| {
        // CL_INVALID_MEM_OBJECT if memobj is not a valid memory object.
        let m = get::<Mem>(memobj)?;
        // CL_INVALID_VALUE if pfn_notify is NULL.
        let f = pfn_notify.ok_or(ClError(CL_INVALID_VALUE))?;
        let (h, user_data) = (SendPtr(memobj), SendPtr(user_data));
        m.add_destructor(Box::new(move || {
            // SAFETY: the application's callback with its handle and user_data, called
            // once, before the object's storage is freed.
            unsafe { f(h.get(), user_data.get()) }
        }));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_flag_validation() {
        let f = buffer_flags(0, false).unwrap();
        assert!(f.device_read && f.device_write && f.host_read && f.host_write);
        let f = buffer_flags(CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, false).unwrap();
        assert!(f.device_read && !f.device_write && !f.host_read && !f.host_write);
        let f = buffer_flags(CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, false).unwrap();
        assert!(!f.device_read && f.device_write && f.host_read && !f.host_write);
        let e = |flags, p| buffer_flags(flags, p).err().map(|e| e.0);
        assert_eq!(
            e(CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, false),
            Some(CL_INVALID_VALUE)
        );
        assert_eq!(
            e(CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, false),
            Some(CL_INVALID_VALUE)
        );
        assert_eq!(
            e(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, true),
            Some(CL_INVALID_VALUE)
        );
        assert_eq!(
            e(CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, true),
            Some(CL_INVALID_VALUE)
        );
        assert!(buffer_flags(CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, true).is_ok());
        assert_eq!(e(CL_MEM_USE_HOST_PTR, false), Some(CL_INVALID_HOST_PTR));
        assert_eq!(e(CL_MEM_COPY_HOST_PTR, false), Some(CL_INVALID_HOST_PTR));
        assert_eq!(e(CL_MEM_ALLOC_HOST_PTR, true), Some(CL_INVALID_HOST_PTR));
        assert_eq!(e(0, true), Some(CL_INVALID_HOST_PTR));
        assert_eq!(e(1 << 40, false), Some(CL_INVALID_VALUE));
        assert_eq!(
            e(CL_MEM_KERNEL_READ_AND_WRITE, false),
            Some(CL_INVALID_VALUE)
        );
    }
}
