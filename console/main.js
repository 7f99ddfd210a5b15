// The console's shell: signing in, the screens and the problem line.
import { Problem, call, session } from "./api.js";
import { fill, when } from "./dom.js";
import * as requests from "./requests.js";
import * as time from "./time.js";
import * as faults from "./faults.js";
import * as state from "./state.js";

const screens = { requests, time, faults, state };
const $ = (id) => document.getElementById(id);
let stopScreen = () => {};

/** What every screen is given: to show a problem, clear it, and sign out. */
const context = {
  report(error) {
    const box = $("problem");
    fill(box, String(error.message || error));
    box.hidden = false;
  },
  clear() {
    $("problem").hidden = true;
  },
  /** Runs an action the user asked for: the last problem cleared, this one's shown if it fails. */
  async attempt(work) {
    context.clear();
    try {
      await work();
    } catch (error) {
      context.report(error);
    }
  },
  signOut,
  signedIn,
};

function signOut() {
  stopScreen();
  stopScreen = () => {};
  session.token = null;
  $("nav").hidden = true;
  $("who").hidden = true;
  $("screen").hidden = true;
  $("sign-in").hidden = false;
  showSandboxCard();
}

/** The sandbox this tab made, if any: a way back to it after signing out. */
function showSandboxCard() {
  const sandbox = session.sandbox;
  $("sandbox-form").hidden = !sandbox;
  if (sandbox) {
    fill($("sandbox-text"), `Partner ${sandbox.partnerId}, ${sandbox.email}. Signing out did not delete it: it stays`,
      sandbox.expiresAt ? ` until ${when(sandbox.expiresAt)} unless used (each use keeps it longer)` : " until it expires unused",
      ". To delete it now, sign in again and choose \u201cDelete the sandbox\u201d on State.");
  }
}

/** A new sandbox's answer: remembered for this tab, then signed in as its partner. */
async function signInToSandbox(sandbox) {
  session.sandbox = { partnerId: sandbox.partnerId, email: sandbox.partner.email, password: sandbox.partner.password,
    expiresAt: sandbox.expiresAt };
  await signIn(sandbox.partner.accessToken);
}

/** Keeps a token only once the server accepted it (a read of its journal, which a partner's and an agent's token may both make). */
async function signIn(token) {
  const previous = session.token;
  session.token = token;
  try {
    await call("GET", "/api/test/requests?limit=1");
  } catch (error) {
    session.token = previous;
    throw error;
  }
  signedIn();
}

function signedIn() {
  const claims = session.claims;
  const who = claims.partnerId ? `partner ${claims.partnerId}` : claims.siteId ? `site ${claims.siteId} (agent)` : "signed in";
  fill($("who-text"), who);
  $("sign-in").hidden = true;
  $("nav").hidden = false;
  $("who").hidden = false;
  $("screen").hidden = false;
  show();
}

function show() {
  if (!session.token) return;
  // Own names only: `in` also finds what every object inherits (#constructor, #__proto__).
  const asked = location.hash.slice(1);
  const name = Object.hasOwn(screens, asked) ? asked : "requests";
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.screen === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  stopScreen();
  context.clear();
  const container = fill($("screen"));
  container.dataset.screen = name;
  stopScreen = screens[name].show(container, context) || (() => {});
  // Keyboard and screen-reader users land on the screen's heading, not the top of the page.
  const heading = container.querySelector("h2");
  if (heading && document.activeElement?.closest("#nav")) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
}

/** Runs a sign-in form's work with its button disabled, showing any problem. */
function onSubmit(formId, work) {
  const form = $(formId);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    context.clear();
    try {
      await work(form);
    } catch (error) {
      context.report(error);
    } finally {
      button.disabled = false;
    }
  });
}

onSubmit("sandbox-form", async () => {
  const { email, password } = session.sandbox || {};
  const answer = await call("POST", "/api/oauth/token", { form: { grant_type: "password", email, password }, auth: false });
  await signIn(answer.access_token);
});
onSubmit("demo-form", async () => {
  await signInToSandbox(await call("POST", "/api/test/sandboxes", { json: {}, auth: false }));
});
onSubmit("data-set-form", async (form) => {
  const file = form.file.files[0];
  let dataSet;
  try {
    dataSet = JSON.parse(await file.text());
  } catch (error) {
    throw new Problem(0, { title: `${file.name} is not JSON (${error.message})` });
  }
  const sandbox = await call("POST", "/api/test/sandboxes", { json: { dataSet }, auth: false });
  form.reset();
  await signInToSandbox(sandbox);
});
onSubmit("password-form", async (form) => {
  const answer = await call("POST", "/api/oauth/token", {
    form: { grant_type: "password", email: form.email.value, password: form.password.value },
    auth: false,
  });
  form.password.value = "";
  await signIn(answer.access_token);
});
onSubmit("token-form", async (form) => {
  await signIn(form.token.value.trim().replace(/^Bearer\s+/i, ""));
  form.token.value = "";
});
$("sign-out").addEventListener("click", signOut);
window.addEventListener("hashchange", show);
if (session.token) signedIn();
else showSandboxCard();
