//! `ferrite-info`: what Ferrite finds on this machine and which `FERRITE_*` switches are in
//! effect, in one place. It reads the same code the driver runs (the toolchain search, the
//! switch list, the worker pool), so what it prints is what a program would get.
#![forbid(unsafe_code)]

use ferrite_runtime::program::toolchain;
use ferrite_runtime::switches::{self, SWITCHES};
use ferrite_runtime::{executor, platform};
use std::fmt::Write as _;
use std::io::Write as _;

fn report() -> Result<String, std::fmt::Error> {
    let mut out = String::new();
    writeln!(out, "{}", platform::VERSION_STRING)?;
    match toolchain::find() {
        Ok(t) => writeln!(out, "OpenCL C compiler: {}", t.describe())?,
        Err(why) => writeln!(out, "OpenCL C compiler: none ({why})")?,
    }
    let link = switches::value("FERRITE_SPIRV_LINK").unwrap_or_else(|| "spirv-link".into());
    let linked = std::process::Command::new(&link).arg("--version").output();
    let missing = if linked.is_ok() { "" } else { " (not found)" };
    writeln!(out, "SPIR-V linker (clLinkProgram): {link}{missing}")?;
    writeln!(out, "Worker threads: {}", executor::num_workers())?;
    writeln!(out, "Environment:")?;
    let width = SWITCHES.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in SWITCHES {
        let value = switches::value(s.name)
            .map_or_else(|| format!("(unset: {})", s.default), |v| format!("={v}"));
        writeln!(
            out,
            "  {:width$} {value}\n  {:width$}   {}",
            s.name, "", s.effect
        )?;
    }
    Ok(out)
}

fn main() {
    let text = report().unwrap_or_default();
    // A closed pipe (`ferrite-info | head`) is not an error worth a message.
    let _ = std::io::stdout().write_all(text.as_bytes());
}
