//! Lemmas checked before a search trusts them: each lemma's proofs against the
//! tables the search has loaded, taking as proved only the lemmas checked before it
//! (so a lemma is checked once, not once for every lemma that relies on it, and a
//! cycle of lemmas is never taken in). The same rules as `check_proof`, through the
//! same per-certificate check.

use rustc_hash::FxHashMap;

use super::proof::{CheckError, CheckOptions, Checked, check_certificate, check_claims};
use crate::certificate::{Certificate, LemmaRef, Proves};
use crate::index::Signature;
use crate::probe::ValueTables;

/// The lemmas checked so far, by checksum, against one set of tables.
pub(crate) struct LemmaChecker<'a> {
    tables: &'a ValueTables,
    trusted: FxHashMap<u64, LemmaRef>,
}

impl<'a> LemmaChecker<'a> {
    /// No lemma checked yet, over `tables`.
    pub(crate) fn new(tables: &'a ValueTables) -> LemmaChecker<'a> {
        LemmaChecker {
            tables,
            trusted: FxHashMap::default(),
        }
    }

    /// Takes `l` as proved (checked before, by this process or a recorded check).
    pub(crate) fn trust(&mut self, l: LemmaRef) {
        self.trusted.insert(l.checksum, l);
    }

    /// Whether the lemma of this checksum is taken as proved.
    pub(crate) fn trusts(&self, checksum: u64) -> bool {
        self.trusted.contains_key(&checksum)
    }

    /// Whether `cert`'s tables are the ones loaded, each with the same checksum.
    pub(crate) fn same_tables(&self, cert: &Certificate) -> Result<(), String> {
        for (sig, sum) in &cert.tables {
            match self.tables.checksums().iter().find(|t| t.0 == *sig) {
                None => return Err(format!("it relies on table {sig}, which is not loaded")),
                Some((_, found)) if found != sum => {
                    return Err(format!(
                        "it was proved over another {sig} table (checksum {sum:016x}; the \
                         tables here have {found:016x})"
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The first table `cert` relies on that is not loaded: a lemma proved over
    /// larger tables than these (or for more stones a side than the search's root
    /// has), which cannot be checked here, nor is it false.
    pub(crate) fn lacks_table(&self, cert: &Certificate) -> Option<Signature> {
        cert.tables
            .iter()
            .map(|t| t.0)
            .find(|sig| !self.tables.checksums().iter().any(|t| t.0 == *sig))
    }

    /// Checks the lemma `cert` (file `name`, checksum `checksum`): its claim, its
    /// tables, that every lemma it names was checked before and proves what it is
    /// named for, and every position of its proofs. Once it holds, it is trusted.
    ///
    /// # Errors
    ///
    /// The first thing that does not hold, as `check_proof` would say it.
    pub(crate) fn check(
        &self,
        name: &str,
        cert: Certificate,
        checksum: u64,
    ) -> Result<LemmaRef, CheckError> {
        let wrong = |reason: String| CheckError::LemmaWrong {
            name: name.into(),
            reason,
        };
        let Proves::Lemma(side, claim) = cert.proves else {
            return Err(wrong("a certificate of a value, not a lemma".into()));
        };
        check_claims(name, &cert)?;
        self.same_tables(&cert).map_err(wrong)?;
        for l in &cert.lemmas {
            match self.trusted.get(&l.checksum) {
                Some(t) if (t.position, t.side, t.claim) == (l.position, l.side, l.claim) => {}
                Some(t) => {
                    return Err(wrong(format!(
                        "it names lemma {} for {} {} at {}, which proves that {} {} at {}",
                        l.file_name(),
                        l.side.name(),
                        l.claim.name(),
                        l.position,
                        t.side.name(),
                        t.claim.name(),
                        t.position
                    )));
                }
                None => {
                    return Err(wrong(format!(
                        "it relies on lemma {}, which is missing, refused or on a cycle",
                        l.file_name()
                    )));
                }
            }
        }
        let proved = LemmaRef {
            checksum,
            position: cert.root,
            side,
            claim,
        };
        let checked = Checked::whole(name.into(), cert, None);
        check_certificate(&checked, self.tables, &CheckOptions::default())?;
        Ok(proved)
    }
}
