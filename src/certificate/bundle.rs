//! A self-contained proof (docs/PROOF.md, "Proof bundles"): one certificate and
//! exactly the lemmas it relies on, in one file that `check-proof` checks alone.

use std::path::Path;

use super::pack::{Pack, pack_bytes};
use super::store::{LemmaDir, relied_on};
use super::{Certificate, CertificateError, MAX_FILE};
use crate::files::bytes::{u32_at, u64_at};

/// The bundle's magic bytes (a certificate's are `FNPROOF\n`, a pack's `FNLPACK\n`).
const MAGIC: [u8; 8] = *b"FNPBNDL\n";
const VERSION: u32 = 1;
/// Magic, version and the certificate's length.
const HEAD: usize = 20;
/// The largest bundle read (it is read whole): the tsivy draw is 1.8 MB.
const MAX_BUNDLE: u64 = 1 << 30;

/// A bundle read: its certificate, that certificate's checksum, and its lemmas.
pub(crate) struct Bundle {
    pub(crate) root: Certificate,
    pub(crate) checksum: u64,
    pub(crate) lemmas: LemmaDir,
}

impl Bundle {
    /// Whether `path` is a regular file that starts as a bundle does.
    pub(crate) fn is_bundle(path: &Path) -> Result<bool, CertificateError> {
        crate::files::read::starts_with(path, &MAGIC).map_err(CertificateError::io(path))
    }

    /// Reads the bundle at `path`, at most `MAX_BUNDLE` bytes.
    pub(crate) fn read(path: &Path) -> Result<Bundle, CertificateError> {
        let bytes = crate::files::read::read_bounded(path, MAX_BUNDLE)
            .map_err(CertificateError::io(path))?;
        Bundle::from_bytes(path, &bytes)
    }

    /// The bundle whose file bytes are `bytes` (`path` names it in errors and as
    /// its lemmas' place). Its certificate must be whole and its pack whole: a
    /// segment cut short or damaged refuses the bundle.
    pub(crate) fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Bundle, CertificateError> {
        let damaged = |what: &str| CertificateError::damaged(path, what);
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            return Err(damaged("not a proof bundle (bad magic bytes)"));
        }
        if bytes.len() < HEAD {
            return Err(damaged("cut short in its header"));
        }
        if u32_at(bytes, 8) != VERSION {
            return Err(damaged(&format!(
                "a proof bundle of format version {}; this build reads version {VERSION}",
                u32_at(bytes, 8)
            )));
        }
        let cert_len = u64_at(bytes, 12);
        let rest = (bytes.len() - HEAD) as u64;
        if cert_len > MAX_FILE || cert_len > rest {
            return Err(damaged("its certificate runs past the end of the file"));
        }
        let (cert, pack) = bytes[HEAD..].split_at(cert_len as usize);
        let root = Certificate::from_bytes(path, cert)?;
        let checksum = u64_at(cert, cert.len() - 16);
        if pack.is_empty() {
            return Err(damaged("cut short after its certificate"));
        }
        let pack = Pack::from_bytes(path, pack.to_vec())?;
        if let Some(why) = pack.cut().or(pack.damaged().first().map(String::as_str)) {
            let from = HEAD as u64 + cert_len;
            return Err(damaged(&format!(
                "its lemmas (a pack from byte {from}): {why}"
            )));
        }
        Ok(Bundle {
            root,
            checksum,
            lemmas: LemmaDir::packed(path, vec![pack]),
        })
    }
}

/// What `bundle_proof` wrote.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BundleReport {
    /// The lemmas bundled with the certificate.
    pub lemmas: usize,
    /// The bundle's size in bytes.
    pub bytes: u64,
}

/// Writes to `out` one self-contained proof: the certificate at `cert` and exactly
/// the lemmas it relies on, directly or through other lemmas, from the lemma
/// directory `lemmas`; written whole or not at all, and read back.
///
/// # Errors
///
/// A certificate or lemma that cannot be read or is damaged (a version 3
/// certificate, read block by block, is not bundled), a lemma missing from
/// `lemmas`, the file `out`.
pub fn bundle_proof(
    cert: &Path,
    lemmas: &Path,
    out: &Path,
) -> Result<BundleReport, CertificateError> {
    let refuse = |path: &Path, why: &str| CertificateError::Refused {
        path: path.into(),
        why: why.into(),
    };
    if Bundle::is_bundle(cert)? {
        return Err(refuse(cert, "a bundle already: nothing to bundle"));
    }
    if Certificate::file_version(cert)? == Some(super::blocked::BLOCKED) {
        return Err(refuse(
            cert,
            "a version 3 certificate (prove --blocked) is not bundled: prove it without --blocked",
        ));
    }
    let same = |a: &Path, b: &Path| {
        std::fs::canonicalize(a).is_ok_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b))
    };
    if same(cert, out) {
        return Err(refuse(out, "the certificate itself: give another --out"));
    }
    if !lemmas.is_dir() {
        return Err(refuse(lemmas, "not a lemma directory"));
    }
    let root =
        crate::files::read::read_bounded(cert, MAX_FILE).map_err(CertificateError::io(cert))?;
    let refs = Certificate::from_bytes(cert, &root)?.lemmas;
    let bundled = relied_on(&LemmaDir::open(lemmas)?, refs)?;
    let pack = pack_bytes(&bundled).map_err(CertificateError::io(out))?;
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(root.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&root);
    bytes.extend_from_slice(&pack);
    crate::files::durable::replace_file(out, |f| std::io::Write::write_all(f, &bytes))
        .map_err(CertificateError::io(out))?;
    let back = Bundle::read(out)?;
    if back.lemmas.checksums()?.len() != bundled.len() {
        return Err(CertificateError::damaged(
            out,
            "the bundle does not read back whole",
        ));
    }
    Ok(BundleReport {
        lemmas: bundled.len(),
        bytes: bytes.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_another_kind_or_a_crafted_length_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.fnproof");
        for (bytes, why) in [
            (b"FNPROOF\n\x01\0\0\0".to_vec(), "bad magic bytes"),
            (
                [&MAGIC[..], &2u32.to_le_bytes(), &0u64.to_le_bytes()].concat(),
                "format version 2; this build reads version 1",
            ),
            (
                [&MAGIC[..], &1u32.to_le_bytes(), &u64::MAX.to_le_bytes()].concat(),
                "runs past the end",
            ),
            (
                [&MAGIC[..], &1u32.to_le_bytes(), &4u64.to_le_bytes(), b"abc"].concat(),
                "runs past the end",
            ),
        ] {
            std::fs::write(&path, &bytes).unwrap();
            let e = Bundle::read(&path).err().expect("refused").to_string();
            assert!(e.contains(why), "{e}");
        }
    }
}
