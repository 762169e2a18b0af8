// The management API, called with the session cookie; the CSRF token lives only in this module's memory.

export class ApiError extends Error {
  constructor(status, reason) {
    super(reason);
    this.status = status;
    this.reason = reason;
  }
}

let csrfToken = null;
let scope = null;
let signedOut = () => {};

/** What the signed-in key reaches: `{ keyId, projectId (null: every project), role }`. */
export function sessionScope() {
  return scope;
}

/** The signed-in key's role (`read`, `send`, `full` or `server`); `server` before the session is known. */
export function sessionRole() {
  return (scope || {}).role || "server";
}

function keep(answer) {
  csrfToken = answer.csrf_token;
  scope = { keyId: answer.key_id, projectId: answer.project_id ?? null, role: answer.role || "server" };
}

/** Called with the reason whenever the server says the session is gone. */
export function onSignedOut(handler) {
  signedOut = handler;
}

export function isSignedIn() {
  return csrfToken !== null;
}

async function call(method, url, body, extraHeaders = {}) {
  const headers = { Accept: "application/json", ...extraHeaders };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (error) {
    throw new ApiError(0, `The server did not answer (${error.message}). Check that tern serve is running.`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const reason = (data && data.error_text) || `The server answered HTTP ${response.status}.`;
    throw new ApiError(response.status, reason);
  }
  return data;
}

/** A management-API call: `api("GET", "/overview")`. A 401 signs the page out. */
export async function api(method, path, body, headers) {
  try {
    return await call(method, "/api/v1/admin" + path, body, headers);
  } catch (error) {
    if (error.status === 401) {
      csrfToken = null;
      scope = null;
      signedOut(error.reason);
    }
    throw error;
  }
}

/** Restores a session the cookie still holds; false when signed out. */
export async function restoreSession() {
  try {
    keep(await call("GET", "/dashboard/session"));
    return true;
  } catch (error) {
    if (error.status === 401) return false;
    throw error;
  }
}

/** Signs in with a key; the key itself is never kept. */
export async function signIn(key) {
  keep(await call("POST", "/dashboard/session", { key }));
}

export async function signOut() {
  try {
    await call("DELETE", "/dashboard/session");
  } finally {
    csrfToken = null;
    scope = null;
  }
}
