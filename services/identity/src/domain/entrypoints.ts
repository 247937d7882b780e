/**
 * Entrypoint: where the candidate came in, as the application form reports it. The raw value is
 * kept as received (`entrypoint_raw`); `entrypoint_code` is its normalised code from this table,
 * null for a value the table does not know. Matching ignores case, accents, spaces and punctuation
 * ("Vacature-pagina", "vacature pagina" and "VACATUREPAGINA" are one value); a URL is matched by
 * its host name ("https://be.indeed.com/…" → indeed).
 *
 * | code         | raw values (after normalisation)                                         |
 * |--------------|--------------------------------------------------------------------------|
 * | website      | website, site, web, homepage, home                                       |
 * | vacancy_page | vacancy, vacancypage, vacature, vacaturepagina, postevacant,             |
 * |              | postesvacants, offre                                                     |
 * | job_alert    | jobalert, vacaturealert, alert, alerte, alerteemploi, newsletter         |
 * | spontaneous  | spontaneous, spontaan, spontanee, candidaturespontanee, opensollicitatie |
 * | referral     | referral, doorverwijzing, viavia, recommandation, parrainage             |
 * | indeed       | indeed, indeed.com, indeed.be (and subdomains)                           |
 * | linkedin     | linkedin, linkedin.com                                                   |
 * | facebook     | facebook, fb, facebook.com, fb.com                                       |
 * | instagram    | instagram, ig, instagram.com                                             |
 * | google_jobs  | google, googlejobs, google.com, google.be                                |
 * | vdab         | vdab, vdab.be                                                            |
 * | forem        | forem, leforem, leforem.be                                               |
 * | actiris      | actiris, actiris.brussels, actiris.be                                    |
 */
export const ENTRYPOINT_CODES = [
  "website",
  "vacancy_page",
  "job_alert",
  "spontaneous",
  "referral",
  "indeed",
  "linkedin",
  "facebook",
  "instagram",
  "google_jobs",
  "vdab",
  "forem",
  "actiris",
] as const;

export type EntrypointCode = (typeof ENTRYPOINT_CODES)[number];

const BY_WORD: Readonly<Record<string, EntrypointCode>> = {
  website: "website",
  site: "website",
  web: "website",
  homepage: "website",
  home: "website",
  vacancy: "vacancy_page",
  vacancypage: "vacancy_page",
  vacature: "vacancy_page",
  vacaturepagina: "vacancy_page",
  postevacant: "vacancy_page",
  postesvacants: "vacancy_page",
  offre: "vacancy_page",
  jobalert: "job_alert",
  vacaturealert: "job_alert",
  alert: "job_alert",
  alerte: "job_alert",
  alerteemploi: "job_alert",
  newsletter: "job_alert",
  spontaneous: "spontaneous",
  spontaan: "spontaneous",
  spontanee: "spontaneous",
  candidaturespontanee: "spontaneous",
  opensollicitatie: "spontaneous",
  referral: "referral",
  doorverwijzing: "referral",
  viavia: "referral",
  recommandation: "referral",
  parrainage: "referral",
  indeed: "indeed",
  linkedin: "linkedin",
  facebook: "facebook",
  fb: "facebook",
  instagram: "instagram",
  ig: "instagram",
  google: "google_jobs",
  googlejobs: "google_jobs",
  vdab: "vdab",
  forem: "forem",
  leforem: "forem",
  actiris: "actiris",
};

/** Registrable host names (the last two labels) of the sources that send candidates by link. */
const BY_HOST: Readonly<Record<string, EntrypointCode>> = {
  "indeed.com": "indeed",
  "indeed.be": "indeed",
  "linkedin.com": "linkedin",
  "facebook.com": "facebook",
  "fb.com": "facebook",
  "instagram.com": "instagram",
  "google.com": "google_jobs",
  "google.be": "google_jobs",
  "vdab.be": "vdab",
  "leforem.be": "forem",
  "actiris.brussels": "actiris",
  "actiris.be": "actiris",
};

function hostCode(value: string): EntrypointCode | null {
  let host: string;
  try {
    host = new URL(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`,
    ).hostname.toLowerCase();
  } catch {
    return null;
  }
  const registrable = host.split(".").slice(-2).join(".");
  return BY_HOST[registrable] ?? null;
}

/** The normalised code of a raw entrypoint, or null when the table does not know it. */
export function entrypointCodeOf(raw: string | null): EntrypointCode | null {
  if (raw === null) return null;
  const value = raw.trim();
  if (value.includes(".") || value.includes("/")) {
    const fromHost = hostCode(value);
    if (fromHost) return fromHost;
  }
  const word = value
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
  return BY_WORD[word] ?? null;
}
