// The console's one way to the server: the same JSON operations any client
// calls, with the tab's token. Every answer that is not a success becomes the
// server's problem (its title, detail and code), shown as it is.

const TOKEN = "switchboard.console.token";
const SANDBOX = "switchboard.console.sandbox";

export const session = {
  get token() { return sessionStorage.getItem(TOKEN); },
  set token(value) { value ? sessionStorage.setItem(TOKEN, value) : sessionStorage.removeItem(TOKEN); },
  /** The sandbox this tab created (partnerId, email, password), kept past a sign-out so that it can sign in again. */
  get sandbox() {
    try {
      return JSON.parse(sessionStorage.getItem(SANDBOX)) || null;
    } catch {
      return null;
    }
  },
  set sandbox(value) {
    value ? sessionStorage.setItem(SANDBOX, JSON.stringify(value)) : sessionStorage.removeItem(SANDBOX);
  },
  /** The claims of the token (not verified here: the server does that on every call). */
  get claims() {
    try {
      const payload = this.token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
      return JSON.parse(atob(payload));
    } catch {
      return {};
    }
  },
};

/**
 * A number with a fraction, kept as the server wrote it (`13.20`, not `13.2`): shown as its
 * text, written back into JSON as the same digits, and a JS number only where arithmetic asks.
 */
export class Decimal {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
  valueOf() { return Number(this.text); }
  toJSON() { return typeof JSON.rawJSON === "function" ? JSON.rawJSON(this.text) : Number(this.text); }
}

/** JSON.parse's reviver: whole numbers stay numbers (ids, counts); the others keep their digits. */
function exactNumbers(key, value, context) {
  if (typeof value !== "number" || !context || typeof context.source !== "string") return value;
  return /^-?\d+$/.test(context.source) ? value : new Decimal(context.source);
}

/** The exact sum of decimals written as text (`0.10` + `0.20` is `0.30`), with the most decimals of any. */
export function sum(values) {
  const texts = values.map((value) => String(value ?? "0"));
  const scale = Math.max(2, ...texts.map((text) => (text.split(".")[1] || "").length));
  let total = 0n;
  for (const text of texts) {
    const negative = text.startsWith("-");
    const [whole, fraction = ""] = text.replace("-", "").split(".");
    const units = BigInt(whole || "0") * 10n ** BigInt(scale) + BigInt((fraction + "0".repeat(scale)).slice(0, scale) || "0");
    total += negative ? -units : units;
  }
  const sign = total < 0n ? "-" : "";
  const digits = (total < 0n ? -total : total).toString().padStart(scale + 1, "0");
  return `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

export class Problem extends Error {
  constructor(status, problem) {
    const detail = problem.detail || problem.title || `the server answered ${status}`;
    super(problem.code ? `${detail} (${status}, code ${problem.code})` : `${detail} (${status})`);
    this.status = status;
    this.problem = problem;
  }
}

/** Calls an operation; resolves to its JSON (null without a body) or rejects with a Problem. */
export async function call(method, path, { json, form, auth = true } = {}) {
  const headers = { "X-Switchboard-Console": "1", Accept: "application/json, application/problem+json" };
  if (auth && session.token) headers.Authorization = `Bearer ${session.token}`;
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    body = new URLSearchParams(form);
  }
  let answer;
  try {
    answer = await fetch(path, { method, headers, body, cache: "no-store", credentials: "omit" });
  } catch (error) {
    throw new Problem(0, { title: `the server could not be reached (${error.message})` });
  }
  const text = await answer.text();
  let data = null;
  try {
    data = text ? JSON.parse(text, exactNumbers) : null;
  } catch {
    data = { title: text.slice(0, 200) };
  }
  if (!answer.ok) throw new Problem(answer.status, data || {});
  return data;
}

/** The served OpenAPI documents (public), fetched once. */
const documents = {};
export async function document(name) {
  documents[name] ??= call("GET", `/openapi/${name}.json`, { auth: false });
  return documents[name];
}
