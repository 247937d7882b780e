/**
 * What a fault test does as an API client of the stack: a token for the demo client, a JSON
 * request, and the vacancies the API lists (so change detection tracks them).
 */
import type { VacancyRef } from "./producers.ts";

export async function fetchToken(
  baseUrl: string,
  { clientId, clientSecret }: { clientId: string; clientSecret: string },
): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function apiRequest<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** At least `count` vacancies the API lists (fewer if it lists fewer). */
export async function listedVacancies(
  baseUrl: string,
  token: string,
  count: number,
): Promise<VacancyRef[]> {
  const out: VacancyRef[] = [];
  for (let page = 1; out.length < count; page++) {
    const res = await apiRequest<{
      data: Array<{ uuid: string; practice: { legacy_reference: string | null } }>;
    }>(baseUrl, token, "GET", `/v1/vacancies?per_page=100&page=${page}`);
    if (res.status !== 200 || res.body.data.length === 0) break;
    out.push(
      ...res.body.data.map((v) => ({
        uuid: v.uuid,
        practiceId: v.practice.legacy_reference ?? "fault-practice",
      })),
    );
  }
  return out;
}
