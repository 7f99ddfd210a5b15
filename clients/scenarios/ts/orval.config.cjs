// orval's clients of the committed documents, on axios (scripts/test.sh runs
// `orval --config clients/scenarios/ts/orval.config.cjs`).
const doc = (name) => `${__dirname}/../../../openapi/${name}.json`;
module.exports = {
  platform: { input: doc("platform-v4"), output: { target: "generated/orval/platform.ts", client: "axios-functions", mode: "single" } },
  billing: { input: doc("partner-billing-v1"), output: { target: "generated/orval/billing.ts", client: "axios-functions", mode: "single" } },
};
