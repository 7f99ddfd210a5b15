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

/// Which clocks `data-set check` reads a data set at.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum CheckClocks {
    /// Today, and a spread of days (`clocks::spread`) when its dates follow the clock.
    #[default]
    Spread,
    /// This one alone.
    At(chrono::DateTime<chrono::Utc>),
    /// Noon of every day of a year.
    EveryDayOf(i32),
}

/// Clock-following failures listed by instant at most; past it, a count.
const LISTED_CLOCKS: usize = 12;

/// `data-set check`: each file read at each clock its dates may meet, and
/// loaded, at the first, into a throwaway database.
/// Each file's verdict also says whether a sandbox can take it (one
/// partner's tenant, with a partner user, on the server's catalogs: what
/// `POST /api/test/sandboxes` refuses besides the load's rules); with
/// `for_sandbox`, a file a sandbox cannot take fails.
pub(super) async fn check_data_sets(files: &[PathBuf], clocks: CheckClocks, for_sandbox: bool) -> anyhow::Result<()> {
    let mut failed = 0;
    for path in files {
        let verdict = check_one(path, clocks).await.and_then(|(tried, json)| {
            let at = if tried > 1 { format!(" at each of {tried} clocks") } else { String::new() };
            match data_sets::sandbox::tenant_of(&json) {
                Ok(_) => Ok(format!("{}: ok{at}; a sandbox can take it", path.display())),
                Err(problems) if for_sandbox => {
                    anyhow::bail!(
                        "{} loads, but a sandbox cannot take it:\n{}",
                        path.display(),
                        data_sets::describe(&problems)
                    )
                }
                Err(problems) => Ok(format!(
                    "{}: ok{at} (to load with `serve --data-set` or `seed --file`); a sandbox cannot take it: {}",
                    path.display(),
                    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
                )),
            }
        });
        match verdict {
            Ok(line) => println!("{line}"),
            Err(err) => {
                failed += 1;
                eprintln!("{err}");
            }
        }
    }
    anyhow::ensure!(failed == 0, "{failed} of {} data sets have problems", files.len());
    Ok(())
}

/// One file: the number of clocks it was read at and its JSON, or every problem.
async fn check_one(path: &Path, clocks: CheckClocks) -> anyhow::Result<(usize, serde_json::Value)> {
    let json = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let now = chrono::Utc::now();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
    let follows = data_sets::clocks::follows_the_clock(&value);
    let clocks = match clocks {
        CheckClocks::At(at) => vec![at],
        CheckClocks::EveryDayOf(year) if follows => data_sets::clocks::every_day_of(year),
        CheckClocks::Spread if follows => data_sets::clocks::spread(now),
        CheckClocks::EveryDayOf(_) | CheckClocks::Spread => vec![now],
    };
    let mut failing: Vec<(chrono::DateTime<chrono::Utc>, String)> = Vec::new();
    for (i, clock) in clocks.iter().enumerate() {
        let outcome = match data_sets::parse(&json, *clock) {
            // The rules that read the clock are the parse's (decisions/test-mode.md);
            // a load (references, each row's rules) is tried at the first clock.
            Ok(mut data) if i == 0 => {
                data.clock = data.clock.or(Some(*clock));
                data_sets::trial_load(data).await.map_err(|err| format!("{err:#}"))
            }
            Ok(_) => Ok(()),
            Err(problems) => Err(data_sets::describe(&problems)),
        };
        if let Err(problems) = outcome {
            failing.push((*clock, problems));
        }
    }
    let Some((first, problems)) = failing.first() else { return Ok((clocks.len(), value)) };
    if clocks.len() == 1 {
        anyhow::bail!("{} is not a data set:\n{problems}", path.display());
    }
    let mut listed: Vec<String> = failing.iter().take(LISTED_CLOCKS).map(|(at, _)| rfc(*at)).collect();
    if failing.len() > LISTED_CLOCKS {
        listed.push(format!("and {} more", failing.len() - LISTED_CLOCKS));
    }
    anyhow::bail!(
        "{} is not a data set on {} of the {} clocks its dates were read at ({}); at {}:\n{problems}",
        path.display(),
        failing.len(),
        clocks.len(),
        listed.join(", "),
        rfc(*first)
    )
}

fn rfc(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
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
