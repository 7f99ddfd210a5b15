//! What the proxy and the replay report: JSON a tool reads, JUnit XML a CI
//! shows, counted per operation.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::compare::Difference;
use crate::contract::Violation;

/// The validating proxy's report: `GET /_proxy/report` while it runs, `--report` on exit.
#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProxyReport {
    /// Exchanges forwarded.
    pub exchanges: u64,
    pub violations: Vec<Violation>,
    /// Per operation: exchanges and violations.
    pub operations: BTreeMap<String, OperationCount>,
}

#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationCount {
    pub exchanges: u64,
    pub violations: u64,
}

impl ProxyReport {
    /// Counts one exchange and its violations.
    pub fn add(&mut self, operation_id: &str, violations: Vec<Violation>) {
        self.exchanges += 1;
        let count = self.operations.entry(operation_id.to_owned()).or_default();
        count.exchanges += 1;
        count.violations += violations.len() as u64;
        self.violations.extend(violations);
    }

    /// JUnit XML: one test case per operation, failing with its violations.
    pub fn junit(&self) -> String {
        let cases = self.operations.iter().map(|(operation, count)| {
            let failures: Vec<String> = self
                .violations
                .iter()
                .filter(|v| v.operation_id == *operation)
                .map(|v| format!("{:?} {}: {}", v.side, v.pointer, v.message))
                .collect();
            (operation.clone(), format!("{} exchanges", count.exchanges), failures)
        });
        junit("switchboard proxy", cases.collect())
    }
}

/// A replay's report: `--json`.
#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParityReport {
    pub exchanges: u64,
    /// Exchanges whose every difference is known (or none).
    pub agreeing: u64,
    /// `agreeing / exchanges` (1 for an empty session).
    pub parity_rate: f64,
    pub operations: BTreeMap<String, OperationParity>,
    pub differences: Vec<Difference>,
    /// Allow-list entries past their date (each fails the run).
    pub expired_known: Vec<String>,
}

#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationParity {
    pub exchanges: u64,
    pub agreeing: u64,
    pub parity_rate: f64,
}

impl ParityReport {
    /// Counts one exchange with its differences.
    pub fn add(&mut self, operation_id: &str, differences: Vec<Difference>) {
        let agrees = differences.iter().all(|d| d.known.is_some());
        self.exchanges += 1;
        self.agreeing += u64::from(agrees);
        let operation = self.operations.entry(operation_id.to_owned()).or_default();
        operation.exchanges += 1;
        operation.agreeing += u64::from(agrees);
        operation.parity_rate = operation.agreeing as f64 / operation.exchanges as f64;
        self.parity_rate = self.agreeing as f64 / self.exchanges as f64;
        self.differences.extend(differences);
    }

    /// Whether the run passes: every difference known, no entry expired.
    pub fn passes(&self) -> bool {
        self.expired_known.is_empty() && self.differences.iter().all(|d| d.known.is_some())
    }

    /// What a person reads at the end of a run.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "parity {:.1} % ({} of {} exchanges agree)\n",
            self.parity_rate * 100.0,
            self.agreeing,
            self.exchanges
        );
        for (operation, parity) in self.operations.iter().filter(|(_, p)| p.agreeing < p.exchanges) {
            let _ = writeln!(text, "  {operation}: {} of {} agree", parity.agreeing, parity.exchanges);
        }
        for d in self.differences.iter().filter(|d| d.known.is_none()) {
            let _ = writeln!(
                text,
                "  #{} {} {}: recorded {}, actual {}",
                d.exchange, d.operation_id, d.pointer, d.recorded, d.actual
            );
        }
        for entry in &self.expired_known {
            let _ = writeln!(text, "  expired allow-list entry: {entry}");
        }
        text
    }

    /// JUnit XML: one test case per operation, failing with its unknown differences.
    pub fn junit(&self) -> String {
        let mut cases: Vec<(String, String, Vec<String>)> = self
            .operations
            .iter()
            .map(|(operation, parity)| {
                let failures = self
                    .differences
                    .iter()
                    .filter(|d| d.operation_id == *operation && d.known.is_none())
                    .map(|d| {
                        format!("exchange {} {}: recorded {}, actual {}", d.exchange, d.pointer, d.recorded, d.actual)
                    })
                    .collect();
                (operation.clone(), format!("{} of {} agree", parity.agreeing, parity.exchanges), failures)
            })
            .collect();
        if !self.expired_known.is_empty() {
            cases.push(("allow-list".into(), "entries in date".into(), self.expired_known.clone()));
        }
        junit("switchboard parity", cases)
    }
}

/// `(name, what passed, failures)` per case as a JUnit XML suite.
fn junit(suite: &str, cases: Vec<(String, String, Vec<String>)>) -> String {
    let failures = cases.iter().filter(|(_, _, f)| !f.is_empty()).count();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">\n",
        escape(suite),
        cases.len()
    );
    for (name, passed, failed) in cases {
        let _ = write!(xml, "<testcase classname=\"{}\" name=\"{}\">", escape(suite), escape(&name));
        if failed.is_empty() {
            let _ = write!(xml, "<system-out>{}</system-out>", escape(&passed));
        } else {
            let _ =
                write!(xml, "<failure message=\"{} problems\">{}</failure>", failed.len(), escape(&failed.join("\n")));
        }
        xml.push_str("</testcase>\n");
    }
    xml.push_str("</testsuite>\n</testsuites>\n");
    xml
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::Side;
    use serde_json::json;

    #[test]
    fn parity_counts_per_operation_and_known_differences_agree() {
        let mut report = ParityReport::default();
        let difference = |known: Option<&str>| Difference {
            operation_id: "getSite".into(),
            exchange: 2,
            pointer: "/body/name".into(),
            recorded: json!("a"),
            actual: json!("b"),
            known: known.map(str::to_owned),
        };
        report.add("getSite", vec![]);
        report.add("getSite", vec![difference(None)]);
        report.add("listSites", vec![difference(Some("order"))]);
        assert_eq!((report.exchanges, report.agreeing), (3, 2));
        assert!((report.operations["getSite"].parity_rate - 0.5).abs() < 1e-9);
        assert!(!report.passes());
        assert!(report.summary().contains("#2 getSite /body/name: recorded \"a\", actual \"b\""));
        let xml = report.junit();
        assert!(xml.contains("tests=\"2\" failures=\"1\"") && xml.contains("&quot;a&quot;"), "{xml}");
    }

    #[test]
    fn the_proxy_report_counts_violations() {
        let mut report = ProxyReport::default();
        let violation = Violation {
            operation_id: "getSite".into(),
            side: Side::Answer,
            pointer: "/status".into(),
            message: "status 299 is not documented".into(),
        };
        report.add("getSite", vec![violation]);
        report.add("getSite", vec![]);
        assert_eq!((report.exchanges, report.operations["getSite"].violations), (2, 1));
        assert!(report.junit().contains("failures=\"1\""));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["violations"][0]["side"], "answer");
        assert_eq!(json["violations"][0]["operationId"], "getSite");
    }
}
