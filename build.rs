//! Gives the shared library a SONAME (libfanotb.so.MAJOR), so that programs linked
//! against it keep loading it across compatible releases.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets it");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libfanotb.so.{major}");
    }
}
