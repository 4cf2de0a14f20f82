//! Gives the shared library a SONAME (libfanotb.so.MAJOR), so that programs linked
//! against it keep loading it across compatible releases, and puts that name beside
//! the library in the target directory (a link to `libfanotb.so`), so that a program
//! linked with `-L target/release -lfanotb` runs against the library as built.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets it");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libfanotb.so.{major}");
        link_soname(&major);
    }
}

/// `target/PROFILE/libfanotb.so.MAJOR -> libfanotb.so`, made before the library
/// itself (a link may point at a file to come). OUT_DIR is
/// `target/PROFILE/build/fanotb-HASH/out`. Best effort: a build never fails over it.
fn link_soname(major: &str) {
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let out = std::path::PathBuf::from(out);
    let Some(profile) = out.ancestors().nth(3) else {
        return;
    };
    let link = profile.join(format!("libfanotb.so.{major}"));
    if link.symlink_metadata().is_err() {
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink("libfanotb.so", &link);
    }
}
