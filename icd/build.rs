//! Link flags for libferrite.so.

fn main() {
    // Bind our own symbols inside the library: ocl-icd exports clFoo symbols too, and
    // without -Bsymbolic a call from inside Ferrite could resolve to the loader's copy
    // (measured: the loader hung on its own clGetPlatformInfo).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    println!("cargo:rerun-if-changed=build.rs");
}
