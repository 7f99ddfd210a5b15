//! The data set commands: `data-set check`, `data-set export`, and what
//! `seed --file` and `serve --data-set` read.

use std::path::{Path, PathBuf};

use anyhow::Context;
use sea_orm::DatabaseConnection;

use switchboard_data_sets as data_sets;
use switchboard_kernel::crypto::FieldCipher;

/// `serve --data-set NAME|FILE`: a file when one is there (or the value names
/// a folder or `.json`), else a name in `--data-sets`.
pub(super) fn start_data_set(
    named: &str,
    folder: Option<&data_sets::folder::DataSetFolder>,
) -> anyhow::Result<data_sets::DataSet> {
    let path = Path::new(named);
    let json = if path.is_file() || named.contains('/') || named.ends_with(".json") {
        std::fs::read_to_string(path)
            .with_context(|| format!("--data-set (SWITCHBOARD_DATA_SET): reading {}", path.display()))?
    } else {
        let folder = folder.ok_or_else(|| {
            anyhow::anyhow!(
                "--data-set {named} names no file, and no --data-sets folder (SWITCHBOARD_DATA_SETS) is set"
            )
        })?;
        folder.read_listing_names(named).map_err(|why| anyhow::anyhow!("--data-set {named} {why}"))?
    };
    // One line, as every setting that cannot be used is.
    data_sets::parse(&json, chrono::Utc::now()).map_err(|problems| {
        let listed = problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        anyhow::anyhow!("--data-set {named} (SWITCHBOARD_DATA_SET) is not a data set: {listed}")
    })
}

/// A data set file, its relative dates read from `now`; its problems, one a line.
pub(super) fn read_data_set(path: &Path, now: chrono::DateTime<chrono::Utc>) -> anyhow::Result<data_sets::DataSet> {
    let json = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    data_sets::parse(&json, now).map_err(|problems| {
        anyhow::anyhow!("{} is not a data set:\n{}", path.display(), data_sets::describe(&problems))
    })
}

/// `data-set check`: each file read and loaded into a throwaway database.
pub(super) async fn check_data_sets(files: &[PathBuf]) -> anyhow::Result<()> {
    let mut failed = 0;
    for path in files {
        let outcome = match read_data_set(path, chrono::Utc::now()) {
            Ok(data) => data_sets::trial_load(data).await.map_err(|err| anyhow::anyhow!("{}: {err:#}", path.display())),
            Err(err) => Err(err),
        };
        match outcome {
            Ok(()) => println!("{}: ok", path.display()),
            Err(err) => {
                failed += 1;
                eprintln!("{err}");
            }
        }
    }
    anyhow::ensure!(failed == 0, "{failed} of {} data sets have problems", files.len());
    Ok(())
}

/// `data-set export`: the partner's tenant as a data set, on stdout.
pub(super) async fn export_data_set(
    db: &DatabaseConnection,
    cipher: &FieldCipher,
    partner: i32,
    relative: bool,
) -> anyhow::Result<()> {
    let clock = switchboard_partner_billing::clock::frozen_at(db, partner).await?.unwrap_or_else(chrono::Utc::now);
    let how = data_sets::export::Snapshot { partner_id: partner, clock, relative, email_tag: None };
    let data =
        data_sets::export::tenant(db, cipher, &how).await.map_err(|err| anyhow::anyhow!("partner {partner}: {err}"))?;
    println!("{}", serde_json::to_string_pretty(&data)?);
    Ok(())
}
