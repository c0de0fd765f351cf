//! The one helper behind every `clGet*Info`: values become bytes ([`InfoValue`]), and
//! [`write_info`] applies the rules common to all queries.

use crate::error::{ClError, ClResult};
use ferrite_runtime::platform::{NameVersion, Version};
use opencl_sys::*;
use std::ffi::c_void;

/// A value a `clGet*Info` query can return.
pub trait InfoValue {
    fn append(&self, out: &mut Vec<u8>);
}

macro_rules! pod_info {
    ($($t:ty),*) => {$(
        impl InfoValue for $t {
            fn append(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
        }
    )*};
}
pod_info!(u8, u32, i32, u64, i64, usize, isize);

/// Strings are returned NUL-terminated.
impl InfoValue for str {
    fn append(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.as_bytes());
        out.push(0);
    }
}

impl InfoValue for String {
    fn append(&self, out: &mut Vec<u8>) {
        self.as_str().append(out)
    }
}

/// Handles are returned as pointers.
impl InfoValue for *mut c_void {
    fn append(&self, out: &mut Vec<u8>) {
        (*self as usize).append(out)
    }
}

impl<T: InfoValue> InfoValue for [T] {
    fn append(&self, out: &mut Vec<u8>) {
        for v in self {
            v.append(out);
        }
    }
}

impl<T: InfoValue> InfoValue for Vec<T> {
    fn append(&self, out: &mut Vec<u8>) {
        self.as_slice().append(out)
    }
}

impl<T: InfoValue, const N: usize> InfoValue for [T; N] {
    fn append(&self, out: &mut Vec<u8>) {
        self.as_slice().append(out)
    }
}

/// `cl_name_version`: a `cl_version` then a 64-byte NUL-padded name.
impl InfoValue for NameVersion {
    fn append(&self, out: &mut Vec<u8>) {
        cl_version(self.version).append(out);
        let mut name = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
        let n = self.name.len().min(CL_NAME_VERSION_MAX_NAME_SIZE - 1);
        name[..n].copy_from_slice(&self.name.as_bytes()[..n]);
        out.extend_from_slice(&name);
    }
}

/// `CL_MAKE_VERSION`.
pub fn cl_version(v: Version) -> cl_version {
    (v.major << 22) | ((v.minor & 0x3ff) << 12) | (v.patch & 0xfff)
}

/// A `cl_bool`.
pub fn cl_bool(b: bool) -> cl_bool {
    if b {
        CL_TRUE
    } else {
        CL_FALSE
    }
}

/// The bytes of a query's answer.
pub fn info<T: InfoValue + ?Sized>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    v.append(&mut out);
    out
}

/// Names joined by spaces (`CL_*_EXTENSIONS`, `CL_DEVICE_IL_VERSION`).
pub fn joined(list: &[NameVersion], with_version: bool) -> String {
    list.iter()
        .map(|nv| {
            if with_version {
                format!("{}_{}.{}", nv.name, nv.version.major, nv.version.minor)
            } else {
                nv.name.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Copy a query's answer out following the rules every `clGet*Info` shares.
///
/// # Safety
/// `param_value` is NULL or valid for `param_value_size` bytes of writes;
/// `param_value_size_ret` is NULL or valid for a write (the API's contract).
pub unsafe fn write_info(
    value: &[u8],
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> ClResult<()> {
    if !param_value.is_null() {
        // CL_INVALID_VALUE if ... size in bytes specified by param_value_size is < size of
        // return type as specified in the table and param_value is not a NULL value.
        if param_value_size < value.len() {
            return Err(ClError(CL_INVALID_VALUE));
        }
        // SAFETY: param_value has room for param_value_size >= value.len() bytes (API
        // contract), and cannot overlap our freshly built `value`.
        unsafe {
            std::ptr::copy_nonoverlapping(value.as_ptr(), param_value as *mut u8, value.len())
        };
    }
    // param_value_size_ret returns the actual size in bytes of data being queried by
    // param_name. If param_value_size_ret is NULL, it is ignored.
    // SAFETY: per the caller.
    unsafe { super::write_out(param_value_size_ret, value.len()) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_encode() {
        assert_eq!(info("ab"), b"ab\0");
        assert_eq!(info(&7u32), 7u32.to_ne_bytes());
        assert_eq!(info(&[1usize, 2]).len(), 16);
        assert_eq!(info(&Vec::<u64>::new()).len(), 0);
        let nv = NameVersion {
            name: "cl_khr_icd",
            version: Version::new(1, 0, 0),
        };
        let b = info(&nv);
        assert_eq!(b.len(), std::mem::size_of::<cl_name_version>());
        assert_eq!(&b[4..14], b"cl_khr_icd");
        assert_eq!(b[14], 0);
        assert_eq!(cl_version(Version::new(3, 0, 0)), 3 << 22);
        assert_eq!(
            joined(&[nv, nv], true),
            "cl_khr_icd_1.0 cl_khr_icd_1.0".to_string()
        );
    }

    #[test]
    fn write_info_rules() {
        let v = info("hello");
        let mut size = 0usize;
        // Size-only query.
        // SAFETY: the pointers are valid or NULL.
        unsafe { write_info(&v, 0, std::ptr::null_mut(), &mut size) }.unwrap();
        assert_eq!(size, 6);
        let mut buf = [0u8; 6];
        // Too small a buffer.
        // SAFETY: buf has 6 bytes, we claim 5.
        let r = unsafe { write_info(&v, 5, buf.as_mut_ptr() as *mut c_void, &mut size) };
        assert_eq!(r, Err(ClError(CL_INVALID_VALUE)));
        // Exact size, NULL size_ret.
        // SAFETY: buf has 6 bytes.
        unsafe { write_info(&v, 6, buf.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) }
            .unwrap();
        assert_eq!(&buf, b"hello\0");
    }
}
