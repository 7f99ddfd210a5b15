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
    data = text ? JSON.parse(text) : null;
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
