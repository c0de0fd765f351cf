//! A thin, checked layer over the OpenCL C API for the benchmarks: every platform the
//! loader sees, one device each, and RAII wrappers. Errors are `Err(String)` naming the call
//! and the code, so one platform's failure skips its column instead of ending the run.

use opencl_sys::*;
use std::ffi::c_void;
use std::ptr;

pub type Result<T> = std::result::Result<T, String>;

fn check(code: cl_int, what: &str) -> Result<()> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed with {code}"))
    }
}

/// A platform's first device, with a context and a queue on it.
pub struct Device {
    pub platform: cl_platform_id,
    pub platform_name: String,
    pub device: cl_device_id,
    pub context: cl_context,
    pub queue: cl_command_queue,
    pub compute_units: u32,
    pub has_il: bool,
}

// SAFETY: OpenCL handles may be used from any thread (OpenCL 3.0 §A.2, thread safety);
// the benchmark uses each device from one thread at a time anyway.
unsafe impl Send for Device {}

fn platform_string(p: cl_platform_id, param: cl_platform_info) -> String {
    let mut size = 0usize;
    // SAFETY: a size-only query: no buffer is written, `size` outlives the call.
    if unsafe { clGetPlatformInfo(p, param, 0, ptr::null_mut(), &mut size) } != CL_SUCCESS {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds the `size` bytes the implementation asked for.
    unsafe { clGetPlatformInfo(p, param, size, buf.as_mut_ptr().cast(), ptr::null_mut()) };
    String::from_utf8_lossy(&buf)
        .trim_end_matches('\0')
        .to_string()
}

fn device_bytes(d: cl_device_id, param: cl_device_info) -> Vec<u8> {
    let mut size = 0usize;
    // SAFETY: a size-only query, as above.
    if unsafe { clGetDeviceInfo(d, param, 0, ptr::null_mut(), &mut size) } != CL_SUCCESS {
        return Vec::new();
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds the `size` bytes the implementation asked for.
    unsafe { clGetDeviceInfo(d, param, size, buf.as_mut_ptr().cast(), ptr::null_mut()) };
    buf
}

/// Every platform the loader finds, each with its first device ready to use.
pub fn devices() -> Vec<std::result::Result<Device, String>> {
    let mut n: cl_uint = 0;
    // SAFETY: a count-only query.
    if unsafe { clGetPlatformIDs(0, ptr::null_mut(), &mut n) } != CL_SUCCESS || n == 0 {
        return Vec::new();
    }
    let mut platforms = vec![ptr::null_mut(); n as usize];
    // SAFETY: `platforms` has room for the `n` ids asked for.
    unsafe { clGetPlatformIDs(n, platforms.as_mut_ptr(), ptr::null_mut()) };
    platforms.into_iter().map(open_device).collect()
}

fn open_device(p: cl_platform_id) -> Result<Device> {
    let platform_name = platform_string(p, CL_PLATFORM_NAME);
    let mut device = ptr::null_mut();
    check(
        // SAFETY: room for one device id.
        unsafe { clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &mut device, ptr::null_mut()) },
        "clGetDeviceIDs",
    )
    .map_err(|e| format!("{platform_name}: {e}"))?;
    let mut err = CL_SUCCESS;
    // SAFETY: one valid device id; no properties or callback.
    let context =
        unsafe { clCreateContext(ptr::null(), 1, &device, None, ptr::null_mut(), &mut err) };
    check(err, "clCreateContext")?;
    // SAFETY: a valid context and device; no properties.
    let queue =
        unsafe { clCreateCommandQueueWithProperties(context, device, ptr::null(), &mut err) };
    check(err, "clCreateCommandQueueWithProperties")?;
    let cu = device_bytes(device, CL_DEVICE_MAX_COMPUTE_UNITS);
    let compute_units = cu
        .get(..4)
        .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
    let il = device_bytes(device, CL_DEVICE_IL_VERSION);
    Ok(Device {
        platform: p,
        platform_name,
        device,
        context,
        queue,
        compute_units,
        has_il: il.iter().any(|&b| b != 0),
    })
}

impl Device {
    pub fn finish(&self) -> Result<()> {
        // SAFETY: a valid queue.
        check(unsafe { clFinish(self.queue) }, "clFinish")
    }

    pub fn buffer(&self, bytes: usize, init: Option<&[u8]>) -> Result<Buffer> {
        let mut err = CL_SUCCESS;
        let (flags, host) = match init {
            Some(data) => (
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                data.as_ptr() as *mut c_void,
            ),
            None => (CL_MEM_READ_WRITE, ptr::null_mut()),
        };
        // SAFETY: with COPY_HOST_PTR, `host` points at `bytes` readable bytes (`init` is
        // that long: callers pass slices of the buffer's size); otherwise it is NULL.
        let mem = unsafe { clCreateBuffer(self.context, flags, bytes, host, &mut err) };
        check(err, "clCreateBuffer")?;
        Ok(Buffer(mem))
    }

    pub fn read(&self, b: &Buffer, out: &mut [u8]) -> Result<()> {
        check(
            // SAFETY: a blocking read of `out.len()` bytes into `out`, which outlives the call.
            unsafe {
                clEnqueueReadBuffer(
                    self.queue,
                    b.0,
                    CL_TRUE,
                    0,
                    out.len(),
                    out.as_mut_ptr().cast(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueReadBuffer",
        )
    }

    /// Enqueue a copy of the first `bytes` of `src` to `dst`; no wait.
    pub fn copy(&self, src: &Buffer, dst: &Buffer, bytes: usize) -> Result<()> {
        check(
            // SAFETY: both buffers are live and at least `bytes` long; no events.
            unsafe {
                clEnqueueCopyBuffer(
                    self.queue,
                    src.0,
                    dst.0,
                    0,
                    0,
                    bytes,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueCopyBuffer",
        )
    }

    /// Enqueue a fill of all of `b` (`bytes` long) with `pattern`; no wait.
    pub fn fill(&self, b: &Buffer, pattern: &[u8], bytes: usize) -> Result<()> {
        check(
            // SAFETY: `pattern` is readable for its length during the call (the
            // implementation copies it before returning); no events.
            unsafe {
                clEnqueueFillBuffer(
                    self.queue,
                    b.0,
                    pattern.as_ptr().cast(),
                    pattern.len(),
                    0,
                    bytes,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueFillBuffer",
        )
    }

    /// Create a program from OpenCL C source and build it with `options`.
    pub fn program_from_source(&self, src: &str, options: &str) -> Result<Program> {
        let mut err = CL_SUCCESS;
        let ptrs = [src.as_ptr().cast::<std::ffi::c_char>()];
        let lens = [src.len()];
        // SAFETY: one string of the given length.
        let p = unsafe {
            clCreateProgramWithSource(self.context, 1, ptrs.as_ptr(), lens.as_ptr(), &mut err)
        };
        check(err, "clCreateProgramWithSource")?;
        let program = Program(p);
        program.build(self.device, options)?;
        Ok(program)
    }

    /// Create a program from SPIR-V and build it.
    pub fn program_from_il(&self, il: &[u8]) -> Result<Program> {
        let mut err = CL_SUCCESS;
        // SAFETY: `il` is readable for its length during the call.
        let p =
            unsafe { clCreateProgramWithIL(self.context, il.as_ptr().cast(), il.len(), &mut err) };
        check(err, "clCreateProgramWithIL")?;
        let program = Program(p);
        program.build(self.device, "")?;
        Ok(program)
    }

    /// A blocking map of the whole buffer for reading and writing, then its unmap; the
    /// first byte read through the mapping.
    pub fn map_unmap(&self, b: &Buffer, bytes: usize) -> Result<u8> {
        let mut err = CL_SUCCESS;
        // SAFETY: a valid queue and buffer of `bytes` bytes; blocking, no events.
        let p = unsafe {
            clEnqueueMapBuffer(
                self.queue,
                b.0,
                CL_TRUE,
                CL_MAP_READ | CL_MAP_WRITE,
                0,
                bytes,
                0,
                ptr::null(),
                ptr::null_mut(),
                &mut err,
            )
        };
        check(err, "clEnqueueMapBuffer")?;
        // SAFETY: a blocking map returned a pointer to `bytes` readable bytes.
        let first = unsafe { *(p as *const u8) };
        check(
            // SAFETY: the pointer this map returned; no events.
            unsafe { clEnqueueUnmapMemObject(self.queue, b.0, p, 0, ptr::null(), ptr::null_mut()) },
            "clEnqueueUnmapMemObject",
        )?;
        Ok(first)
    }

    /// Whether the device offers images (`CL_DEVICE_IMAGE_SUPPORT`).
    pub fn has_images(&self) -> bool {
        device_bytes(self.device, CL_DEVICE_IMAGE_SUPPORT)
            .get(..4)
            .is_some_and(|b| b.iter().any(|&x| x != 0))
    }

    /// A `width` × `height` 2D image of `format`, filled from `init` (tightly packed rows)
    /// when given.
    pub fn image2d(
        &self,
        format: cl_image_format,
        width: usize,
        height: usize,
        init: Option<&[u8]>,
    ) -> Result<Buffer> {
        // SAFETY: an all-zero descriptor is a valid start (no pitches, no buffer).
        let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = width;
        desc.image_height = height;
        let (flags, host) = match init {
            Some(data) => (
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                data.as_ptr() as *mut c_void,
            ),
            None => (CL_MEM_READ_WRITE, ptr::null_mut()),
        };
        let mut err = CL_SUCCESS;
        // SAFETY: with COPY_HOST_PTR, `host` holds `height` tightly packed rows (callers
        // pass a slice of the image's size); otherwise it is NULL.
        let mem = unsafe { clCreateImage(self.context, flags, &format, &desc, host, &mut err) };
        check(err, "clCreateImage")?;
        Ok(Buffer(mem))
    }

    /// Read all of a `width` × `height` 2D image into `out` (tightly packed rows).
    pub fn read_image2d(
        &self,
        image: &Buffer,
        width: usize,
        height: usize,
        out: &mut [u8],
    ) -> Result<()> {
        let (origin, region) = ([0usize; 3], [width, height, 1]);
        check(
            // SAFETY: a blocking read of the whole image into `out`, which callers size as
            // the image's tightly packed bytes and which outlives the call.
            unsafe {
                clEnqueueReadImage(
                    self.queue,
                    image.0,
                    CL_TRUE,
                    origin.as_ptr(),
                    region.as_ptr(),
                    0,
                    0,
                    out.as_mut_ptr().cast(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueReadImage",
        )
    }

    /// A sampler with unnormalised coordinates.
    pub fn sampler(
        &self,
        addressing: cl_addressing_mode,
        filter: cl_filter_mode,
    ) -> Result<Sampler> {
        let props: [cl_sampler_properties; 7] = [
            CL_SAMPLER_NORMALIZED_COORDS as cl_sampler_properties,
            CL_FALSE as cl_sampler_properties,
            CL_SAMPLER_ADDRESSING_MODE as cl_sampler_properties,
            addressing as cl_sampler_properties,
            CL_SAMPLER_FILTER_MODE as cl_sampler_properties,
            filter as cl_sampler_properties,
            0,
        ];
        let mut err = CL_SUCCESS;
        // SAFETY: a zero-terminated property list that outlives the call.
        let s = unsafe { clCreateSamplerWithProperties(self.context, props.as_ptr(), &mut err) };
        check(err, "clCreateSamplerWithProperties")?;
        Ok(Sampler(s))
    }

    /// Enqueue `k` over `global` (1–3 dims) with an optional local size; no wait.
    pub fn enqueue(&self, k: &Kernel, global: &[usize], local: Option<&[usize]>) -> Result<()> {
        let local_ptr = local.map_or(ptr::null(), <[usize]>::as_ptr);
        check(
            // SAFETY: `global` (and `local` when given) hold `global.len()` sizes.
            unsafe {
                clEnqueueNDRangeKernel(
                    self.queue,
                    k.0,
                    global.len() as cl_uint,
                    ptr::null(),
                    global.as_ptr(),
                    local_ptr,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueNDRangeKernel",
        )
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: both handles were created by `open_device` and are released once.
        unsafe {
            clReleaseCommandQueue(self.queue);
            clReleaseContext(self.context);
        }
    }
}

pub struct Buffer(pub cl_mem);

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: created by `Device::buffer`, released once.
        unsafe { clReleaseMemObject(self.0) };
    }
}

pub struct Sampler(pub cl_sampler);

impl Drop for Sampler {
    fn drop(&mut self) {
        // SAFETY: created by `Device::sampler`, released once.
        unsafe { clReleaseSampler(self.0) };
    }
}

pub struct Program(cl_program);

impl Program {
    fn build(&self, device: cl_device_id, options: &str) -> Result<()> {
        let opts = std::ffi::CString::new(options).map_err(|e| e.to_string())?;
        // SAFETY: a valid program and device, a NUL-terminated options string.
        let code =
            unsafe { clBuildProgram(self.0, 1, &device, opts.as_ptr(), None, ptr::null_mut()) };
        if code == CL_SUCCESS {
            return Ok(());
        }
        let mut size = 0usize;
        // SAFETY: a size-only query.
        unsafe {
            clGetProgramBuildInfo(
                self.0,
                device,
                CL_PROGRAM_BUILD_LOG,
                0,
                ptr::null_mut(),
                &mut size,
            )
        };
        let mut log = vec![0u8; size];
        // SAFETY: `log` holds the `size` bytes asked for.
        unsafe {
            clGetProgramBuildInfo(
                self.0,
                device,
                CL_PROGRAM_BUILD_LOG,
                size,
                log.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        Err(format!(
            "clBuildProgram failed with {code}: {}",
            String::from_utf8_lossy(&log).trim_end_matches('\0')
        ))
    }

    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let cname = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
        let mut err = CL_SUCCESS;
        // SAFETY: a built program and a NUL-terminated name.
        let k = unsafe { clCreateKernel(self.0, cname.as_ptr(), &mut err) };
        check(err, "clCreateKernel")?;
        Ok(Kernel(k))
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by `Device::program_from_*`, released once.
        unsafe { clReleaseProgram(self.0) };
    }
}

pub struct Kernel(cl_kernel);

impl Kernel {
    pub fn arg<T: Copy>(&self, index: u32, value: &T) -> Result<&Self> {
        check(
            // SAFETY: `value` is readable for `size_of::<T>()` bytes during the call.
            unsafe {
                clSetKernelArg(
                    self.0,
                    index,
                    std::mem::size_of::<T>(),
                    (value as *const T).cast(),
                )
            },
            "clSetKernelArg",
        )?;
        Ok(self)
    }

    pub fn buf(&self, index: u32, b: &Buffer) -> Result<&Self> {
        self.arg(index, &b.0)
    }

    pub fn local(&self, index: u32, bytes: usize) -> Result<&Self> {
        check(
            // SAFETY: a `__local` argument: size only, NULL value.
            unsafe { clSetKernelArg(self.0, index, bytes, ptr::null()) },
            "clSetKernelArg(local)",
        )?;
        Ok(self)
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: created by `Program::kernel`, released once.
        unsafe { clReleaseKernel(self.0) };
    }
}

/// Bytes of a slice of plain numbers.
pub fn bytes_of<T: Copy>(data: &[T]) -> &[u8] {
    // SAFETY: any initialised `Copy` numbers may be viewed as bytes; the length is the
    // slice's size in bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), std::mem::size_of_val(data)) }
}

/// The `cl_khr_command_buffer` functions the benchmarks use (the header's signatures).
struct CommandBufferFns {
    create: unsafe extern "C" fn(
        cl_uint,
        *const cl_command_queue,
        *const cl_command_buffer_properties_khr,
        *mut cl_int,
    ) -> cl_command_buffer_khr,
    ndrange: unsafe extern "C" fn(
        cl_command_buffer_khr,
        cl_command_queue,
        *const cl_command_properties_khr,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const cl_sync_point_khr,
        *mut cl_sync_point_khr,
        *mut *mut c_void,
    ) -> cl_int,
    finalize: unsafe extern "C" fn(cl_command_buffer_khr) -> cl_int,
    enqueue: unsafe extern "C" fn(
        cl_uint,
        *mut cl_command_queue,
        cl_command_buffer_khr,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
    release: unsafe extern "C" fn(cl_command_buffer_khr) -> cl_int,
}

/// A command buffer recording on a device's queue (`cl_khr_command_buffer`).
pub struct CommandBuffer<'a> {
    device: &'a Device,
    fns: CommandBufferFns,
    handle: cl_command_buffer_khr,
}

impl Device {
    /// The platform's function `name` as `F`, or an error if it has none.
    ///
    /// # Safety
    /// `F` is the function-pointer type the extension's header gives `name`.
    unsafe fn extension_fn<F: Copy>(&self, name: &str) -> Result<F> {
        let c = std::ffi::CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: a valid platform and a NUL-terminated name.
        let p = unsafe { clGetExtensionFunctionAddressForPlatform(self.platform, c.as_ptr()) };
        if p.is_null() || std::mem::size_of::<F>() != std::mem::size_of_val(&p) {
            return Err(format!("no {name}"));
        }
        // SAFETY: a non-NULL function of the driver, of type `F` (per the caller).
        Ok(unsafe { std::mem::transmute_copy(&p) })
    }

    /// An empty command buffer on the device's queue, or an error if the device has no
    /// `cl_khr_command_buffer`.
    pub fn command_buffer(&self) -> Result<CommandBuffer<'_>> {
        let exts =
            String::from_utf8_lossy(&device_bytes(self.device, CL_DEVICE_EXTENSIONS)).to_string();
        if !exts
            .split_whitespace()
            .any(|e| e == "cl_khr_command_buffer")
        {
            return Err("no cl_khr_command_buffer".into());
        }
        // SAFETY: each field's type is the header's signature for the name.
        let fns = unsafe {
            CommandBufferFns {
                create: self.extension_fn("clCreateCommandBufferKHR")?,
                ndrange: self.extension_fn("clCommandNDRangeKernelKHR")?,
                finalize: self.extension_fn("clFinalizeCommandBufferKHR")?,
                enqueue: self.extension_fn("clEnqueueCommandBufferKHR")?,
                release: self.extension_fn("clReleaseCommandBufferKHR")?,
            }
        };
        let mut err = CL_SUCCESS;
        // SAFETY: one valid queue, no properties.
        let handle = unsafe { (fns.create)(1, &self.queue, ptr::null(), &mut err) };
        check(err, "clCreateCommandBufferKHR")?;
        Ok(CommandBuffer {
            device: self,
            fns,
            handle,
        })
    }
}

impl CommandBuffer<'_> {
    /// Record a launch of `k` over `global`.
    pub fn ndrange(&self, k: &Kernel, global: &[usize]) -> Result<()> {
        check(
            // SAFETY: a recording buffer, a valid kernel; `global` holds its dimensions.
            unsafe {
                (self.fns.ndrange)(
                    self.handle,
                    ptr::null_mut(),
                    ptr::null(),
                    k.0,
                    global.len() as cl_uint,
                    ptr::null(),
                    global.as_ptr(),
                    ptr::null(),
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            },
            "clCommandNDRangeKernelKHR",
        )
    }

    pub fn finalize(&self) -> Result<()> {
        // SAFETY: a valid command buffer.
        check(
            unsafe { (self.fns.finalize)(self.handle) },
            "clFinalizeCommandBufferKHR",
        )
    }

    /// Enqueue on the device's queue.
    pub fn enqueue(&self) -> Result<()> {
        check(
            // SAFETY: a finalized buffer; no queues, wait list or event.
            unsafe {
                (self.fns.enqueue)(
                    0,
                    ptr::null_mut(),
                    self.handle,
                    0,
                    ptr::null(),
                    ptr::null_mut(),
                )
            },
            "clEnqueueCommandBufferKHR",
        )
    }

    pub fn device(&self) -> &Device {
        self.device
    }
}

impl Drop for CommandBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `command_buffer`, released once.
        unsafe { (self.fns.release)(self.handle) };
    }
}
