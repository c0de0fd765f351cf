//! The ICD dispatch table: every slot of `cl_icd_dispatch`, filled from the one list below.
//!
//! ocl-icd calls slots without checking for NULL, so every slot gets a function. Slots we
//! implement name their entry point; the others get a generated stub with the header's
//! exact signature that returns `CL_INVALID_OPERATION` (and sets `*errcode_ret` for
//! creators). The table's field types are the header's function-pointer typedefs, so each
//! entry is type-checked, and a struct literal must name every field exactly once.
//!
//! The stub list was generated from `opencl-sys`'s `cl_function_types.rs` (see the
//! `_cl_icd_dispatch` order there). To implement a slot, move it from `stubs` to
//! `implemented`.

use super::{
    context, device, enqueue, event, image, kernel, mem, platform, program, queue, sampler, svm,
};
use libc::{c_char, c_void, size_t};
use opencl_sys::cl_icd::*;
use opencl_sys::*;

/// What a stub returns: `CL_INVALID_OPERATION` or NULL.
trait StubReturn {
    const INVALID_OPERATION: Self;
}
impl StubReturn for cl_int {
    const INVALID_OPERATION: cl_int = CL_INVALID_OPERATION;
}
impl StubReturn for *mut c_void {
    const INVALID_OPERATION: *mut c_void = std::ptr::null_mut();
}
impl StubReturn for () {
    const INVALID_OPERATION: () = ();
}

/// Sets `*errcode_ret` in stubs that have one.
macro_rules! stub_errcode {
    (errcode_ret, $e:ident) => {
        if !$e.is_null() {
            // SAFETY: a non-NULL errcode_ret points to a cl_int (API contract).
            unsafe { *$e = CL_INVALID_OPERATION };
        }
    };
    ($other:ident, $e:ident) => {};
}

macro_rules! dispatch_table {
    (
        implemented { $( $slot:ident => $f:path; )* }
        stubs { $( fn $name:ident ( $( $p:ident : $t:ty ),* ) -> $ret:ty; )* }
        reserved { $( $r:ident; )* }
    ) => {
        /// Entry points not implemented yet.
        mod stubs {
            use super::*;
            $(
                #[allow(non_snake_case, unused_variables, clippy::unused_unit)] // Generated.
                pub(super) unsafe extern "C" fn $name( $( $p : $t ),* ) -> $ret {
                    $( stub_errcode!($p, $p); )*
                    <$ret as StubReturn>::INVALID_OPERATION
                }
            )*
        }

        /// The table every handle points to.
        pub static DISPATCH: _cl_icd_dispatch = _cl_icd_dispatch {
            $( $slot: Some($f), )*
            $( $name: Some(stubs::$name), )*
            $( $r: 0, )*
        };
    };
}

dispatch_table! {
implemented {
    clGetPlatformIDs => platform::get_platform_ids;
    clGetPlatformInfo => platform::get_platform_info;
    clGetDeviceIDs => device::get_device_ids;
    clGetDeviceInfo => device::get_device_info;
    clCreateContext => context::create_context;
    clCreateContextFromType => context::create_context_from_type;
    clRetainContext => context::retain_context;
    clReleaseContext => context::release_context;
    clGetContextInfo => context::get_context_info;
    clCreateCommandQueue => queue::create_command_queue;
    clRetainCommandQueue => queue::retain_command_queue;
    clReleaseCommandQueue => queue::release_command_queue;
    clGetCommandQueueInfo => queue::get_command_queue_info;
    clCreateBuffer => mem::create_buffer;
    clRetainMemObject => mem::retain_mem_object;
    clReleaseMemObject => mem::release_mem_object;
    clGetSupportedImageFormats => image::get_supported_image_formats;
    clCreateImage2D => image::create_image_2d;
    clCreateImage3D => image::create_image_3d;
    clGetImageInfo => image::get_image_info;
    clCreateImage => image::create_image;
    clCreateImageWithProperties => image::create_image_with_properties;
    clCreateSampler => sampler::create_sampler;
    clCreateSamplerWithProperties => sampler::create_sampler_with_properties;
    clRetainSampler => sampler::retain_sampler;
    clReleaseSampler => sampler::release_sampler;
    clGetSamplerInfo => sampler::get_sampler_info;
    clEnqueueReadImage => enqueue::enqueue_read_image;
    clEnqueueWriteImage => enqueue::enqueue_write_image;
    clEnqueueCopyImage => enqueue::enqueue_copy_image;
    clEnqueueFillImage => enqueue::enqueue_fill_image;
    clEnqueueCopyImageToBuffer => enqueue::enqueue_copy_image_to_buffer;
    clEnqueueCopyBufferToImage => enqueue::enqueue_copy_buffer_to_image;
    clEnqueueMapImage => enqueue::enqueue_map_image;
    clGetMemObjectInfo => mem::get_mem_object_info;
    clCreateProgramWithSource => program::create_program_with_source;
    clCreateProgramWithBinary => program::create_program_with_binary;
    clRetainProgram => program::retain_program;
    clReleaseProgram => program::release_program;
    clBuildProgram => program::build_program;
    clUnloadCompiler => platform::unload_compiler;
    clGetProgramInfo => program::get_program_info;
    clGetProgramBuildInfo => program::get_program_build_info;
    clCreateKernel => kernel::create_kernel;
    clCreateKernelsInProgram => kernel::create_kernels_in_program;
    clRetainKernel => kernel::retain_kernel;
    clReleaseKernel => kernel::release_kernel;
    clSetKernelArg => kernel::set_kernel_arg;
    clGetKernelInfo => kernel::get_kernel_info;
    clGetKernelWorkGroupInfo => kernel::get_kernel_work_group_info;
    clWaitForEvents => event::wait_for_events;
    clGetEventInfo => event::get_event_info;
    clRetainEvent => event::retain_event;
    clReleaseEvent => event::release_event;
    clGetEventProfilingInfo => event::get_event_profiling_info;
    clFlush => queue::flush;
    clFinish => queue::finish;
    clEnqueueReadBuffer => enqueue::enqueue_read_buffer;
    clEnqueueWriteBuffer => enqueue::enqueue_write_buffer;
    clEnqueueCopyBuffer => enqueue::enqueue_copy_buffer;
    clEnqueueMapBuffer => enqueue::enqueue_map_buffer;
    clEnqueueUnmapMemObject => enqueue::enqueue_unmap_mem_object;
    clEnqueueNDRangeKernel => enqueue::enqueue_nd_range_kernel;
    clEnqueueTask => enqueue::enqueue_task;
    clEnqueueMarker => enqueue::enqueue_marker;
    clEnqueueWaitForEvents => enqueue::enqueue_wait_for_events;
    clEnqueueBarrier => enqueue::enqueue_barrier;
    clGetExtensionFunctionAddress => platform::clGetExtensionFunctionAddress;
    clSetEventCallback => event::set_event_callback;
    clSetMemObjectDestructorCallback => mem::set_mem_object_destructor_callback;
    clCreateUserEvent => event::create_user_event;
    clSetUserEventStatus => event::set_user_event_status;
    clCreateSubDevices => device::create_sub_devices;
    clRetainDevice => device::retain_device;
    clReleaseDevice => device::release_device;
    clUnloadPlatformCompiler => platform::unload_platform_compiler;
    clGetKernelArgInfo => kernel::get_kernel_arg_info;
    clEnqueueFillBuffer => enqueue::enqueue_fill_buffer;
    clEnqueueMigrateMemObjects => enqueue::enqueue_migrate_mem_objects;
    clEnqueueMarkerWithWaitList => enqueue::enqueue_marker_with_wait_list;
    clEnqueueBarrierWithWaitList => enqueue::enqueue_barrier_with_wait_list;
    clGetExtensionFunctionAddressForPlatform => platform::clGetExtensionFunctionAddressForPlatform;
    clCreateCommandQueueWithProperties => queue::create_command_queue_with_properties;
    clCloneKernel => kernel::clone_kernel;
    clCreateProgramWithIL => program::create_program_with_il;
    clCreateBufferWithProperties => mem::create_buffer_with_properties;
    clSetContextDestructorCallback => context::set_context_destructor_callback;
    clSVMAlloc => svm::svm_alloc;
    clSVMFree => svm::svm_free;
    clEnqueueSVMFree => svm::enqueue_svm_free;
    clEnqueueSVMMemcpy => svm::enqueue_svm_memcpy;
    clEnqueueSVMMemFill => svm::enqueue_svm_mem_fill;
    clEnqueueSVMMap => svm::enqueue_svm_map;
    clEnqueueSVMUnmap => svm::enqueue_svm_unmap;
    clEnqueueSVMMigrateMem => svm::enqueue_svm_migrate_mem;
    clSetKernelArgSVMPointer => svm::set_kernel_arg_svm_pointer;
    clSetKernelExecInfo => svm::set_kernel_exec_info;
    clCreateSubBuffer => mem::create_sub_buffer;
    clEnqueueReadBufferRect => enqueue::enqueue_read_buffer_rect;
    clEnqueueWriteBufferRect => enqueue::enqueue_write_buffer_rect;
    clEnqueueCopyBufferRect => enqueue::enqueue_copy_buffer_rect;
    clEnqueueNativeKernel => enqueue::enqueue_native_kernel;
    clCompileProgram => program::compile_program;
    clLinkProgram => program::link_program;
    clGetDeviceAndHostTimer => device::get_device_and_host_timer;
    clGetHostTimer => device::get_host_timer;
    clGetKernelSubGroupInfo => kernel::get_kernel_sub_group_info;
    clGetKernelSubGroupInfoKHR => kernel::get_kernel_sub_group_info;
    clSetDefaultDeviceCommandQueue => queue::set_default_device_command_queue;
    clSetProgramReleaseCallback => program::set_program_release_callback;
    clSetProgramSpecializationConstant => program::set_program_specialization_constant;
    clGetPipeInfo => mem::get_pipe_info;
}
stubs {
    fn clSetCommandQueueProperty(command_queue: cl_command_queue, properties: cl_command_queue_properties, enable: cl_bool, old_properties: *mut cl_command_queue_properties) -> cl_int;
    fn clCreateFromGLBuffer(context: cl_context, flags: cl_mem_flags, bufobj: cl_GLuint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromGLTexture2D(context: cl_context, flags: cl_mem_flags, target: cl_GLenum, miplevel: cl_GLint, texture: cl_GLuint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromGLTexture3D(context: cl_context, flags: cl_mem_flags, target: cl_GLenum, miplevel: cl_GLint, texture: cl_GLuint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromGLRenderbuffer(context: cl_context, flags: cl_mem_flags, renderbuffer: cl_GLuint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clGetGLObjectInfo(memobj: cl_mem, gl_object_type: *mut cl_gl_object_type, gl_object_name: *mut cl_GLuint) -> cl_int;
    fn clGetGLTextureInfo(memobj: cl_mem, param_name: cl_gl_texture_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int;
    fn clEnqueueAcquireGLObjects(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueReleaseGLObjects(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clGetGLContextInfoKHR(properties: *const cl_context_properties, param_name: cl_gl_context_info, param_value_size: size_t, param_value: *mut c_void, param_value_size_ret: *mut size_t) -> cl_int;
    fn clGetDeviceIDsFromD3D10KHR(platform: cl_platform_id, d3d_device_source: cl_d3d10_device_source_khr, d3d_object: *mut c_void, d3d_device_set: cl_d3d10_device_set_khr, num_entries: cl_uint, devices: *mut cl_device_id, num_devices: *mut cl_uint) -> cl_int;
    fn clCreateFromD3D10BufferKHR(context: cl_context, flags: cl_mem_flags, resource: ID3D10Buffer_ptr, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromD3D10Texture2DKHR(context: cl_context, flags: cl_mem_flags, resource: ID3D10Texture2D_ptr, subresource: cl_uint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromD3D10Texture3DKHR(context: cl_context, flags: cl_mem_flags, resource: ID3D10Texture3D_ptr, subresource: cl_uint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clEnqueueAcquireD3D10ObjectsKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueReleaseD3D10ObjectsKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clCreateSubDevicesEXT(in_device: cl_device_id, properties: *const cl_device_partition_property_ext, num_entries: cl_uint, out_devices: *mut cl_device_id, num_devices: *mut cl_uint) -> cl_int;
    fn clRetainDeviceEXT(device: cl_device_id) -> cl_int;
    fn clReleaseDeviceEXT(device: cl_device_id) -> cl_int;
    fn clCreateEventFromGLsyncKHR(context: cl_context, sync: cl_GLsync, errcode_ret: *mut cl_int) -> cl_event;
    fn clCreateProgramWithBuiltInKernels(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, kernel_names: *const c_char, errcode_ret: *mut cl_int) -> cl_program;
    fn clCreateFromGLTexture(context: cl_context, flags: cl_mem_flags, target: cl_GLenum, miplevel: cl_GLint, texture: cl_GLuint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clGetDeviceIDsFromD3D11KHR(platform: cl_platform_id, d3d_device_source: cl_d3d11_device_source_khr, d3d_object: *mut c_void, d3d_device_set: cl_d3d11_device_set_khr, num_entries: cl_uint, devices: *mut cl_device_id, num_devices: *mut cl_uint) -> cl_int;
    fn clCreateFromD3D11BufferKHR(context: cl_context, flags: cl_mem_flags, resource: ID3D11Buffer_ptr, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromD3D11Texture2DKHR(context: cl_context, flags: cl_mem_flags, resource: ID3D11Texture2D_ptr, subresource: cl_uint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromD3D11Texture3DKHR(context: cl_context, flags: cl_mem_flags, resource: ID3D11Texture3D_ptr, subresource: cl_uint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateFromDX9MediaSurfaceKHR(context: cl_context, flags: cl_mem_flags, adapter_type: cl_dx9_media_adapter_type_khr, surface_info: *mut c_void, plane: cl_uint, errcode_ret: *mut cl_int) -> cl_mem;
    fn clEnqueueAcquireD3D11ObjectsKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueReleaseD3D11ObjectsKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clGetDeviceIDsFromDX9MediaAdapterKHR(platform: cl_platform_id, num_media_adapters: cl_uint, media_adapter_type: *mut cl_dx9_media_adapter_type_khr, media_adapters: *mut c_void, media_adapter_set: cl_dx9_media_adapter_set_khr, num_entries: cl_uint, devices: *mut cl_device_id, num_devices: *mut cl_uint) -> cl_int;
    fn clEnqueueAcquireDX9MediaSurfacesKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueReleaseDX9MediaSurfacesKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clCreateFromEGLImageKHR(context: cl_context, egldisplay: CLeglDisplayKHR, eglimage: CLeglImageKHR, flags: cl_mem_flags, properties: *const cl_egl_image_properties_khr, errcode_ret: *mut cl_int) -> cl_mem;
    fn clEnqueueAcquireEGLObjectsKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueReleaseEGLObjectsKHR(command_queue: cl_command_queue, num_objects: cl_uint, mem_objects: *const cl_mem, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clCreateEventFromEGLSyncKHR(context: cl_context, sync: CLeglSyncKHR, display: CLeglDisplayKHR, errcode_ret: *mut cl_int) -> cl_event;
    fn clCreatePipe(context: cl_context, flags: cl_mem_flags, pipe_packet_size: cl_uint, pipe_max_packets: cl_uint, properties: *const cl_pipe_properties, errcode_ret: *mut cl_int) -> cl_mem;
}
reserved {
    // An intptr_t unless CL_VERSION_3_1 is enabled.
    clGetKernelSuggestedLocalWorkSize;
}
}
