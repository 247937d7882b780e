/**
 * Vacancy wording in Dutch and French, assembled from phrase pools so bodies read like real
 * postings (and stay cheap to generate at benchmark scale). HTML is what the legacy editor stores:
 * paragraphs, lists, links, and sometimes formatting pasted from a word processor.
 */
import type { Random } from "./random.ts";

export type Lang = "nl" | "fr";

export type VacancyTextInput = {
  lang: Lang;
  positionCode: string | null;
  practiceName: string;
  city: string;
  contactName: string;
  email: string;
  phone: string;
};

export type VacancyText = {
  heading: string;
  frontendName: string;
  internalName: string;
  teaser: string;
  intro: string;
  profile: string;
  tasks: string;
  offer: string;
  contact: string;
  region: string;
};

const LABELS: Record<Lang, Record<string, string>> = {
  nl: {
    TA: "tandarts",
    TAS: "tandartsassistent(e)",
    MH: "mondhygiënist(e)",
    ORTHO: "orthodontist",
    PARO: "parodontoloog",
    IMPL: "implantoloog",
    KAAK: "kaakchirurg",
    VPK: "verpleegkundige",
    PM: "praktijkmanager",
    ONTH: "onthaalmedewerker",
    STER: "sterilisatiemedewerker",
    TT: "tandtechnicus",
    STAG: "stagiair tandarts",
    SEC: "secretariaatsmedewerker",
  },
  fr: {
    TA: "dentiste",
    TAS: "assistant(e) dentaire",
    MH: "hygiéniste bucco-dentaire",
    ORTHO: "orthodontiste",
    PARO: "parodontologue",
    IMPL: "implantologue",
    KAAK: "chirurgien maxillo-facial",
    VPK: "infirmier/infirmière",
    PM: "practice manager",
    ONTH: "réceptionniste",
    STER: "agent de stérilisation",
    TT: "prothésiste dentaire",
    STAG: "dentiste stagiaire",
    SEC: "secrétaire médical(e)",
  },
};

const PHRASES = {
  nl: {
    heading: ["{F} gezocht in {C}", "{F} (m/v/x) – {C}", "Wij zoeken een {f}!", "Vacature {f} {C}"],
    intro: [
      "{P} in {C} zoekt een enthousiaste {f} om het team te versterken.",
      "Voor onze moderne groepspraktijk in {C} zijn we op zoek naar een {f} (m/v/x).",
      "Ben jij de {f} die ons team in {C} komt versterken? Lees dan snel verder!",
      "Wegens uitbreiding zoekt {P} een gemotiveerde {f}.",
    ],
    profile: [
      "Je hebt een relevant diploma of gelijkwaardige ervaring",
      "Je bent klantvriendelijk en communicatief sterk",
      "Je werkt nauwkeurig en hygiënisch",
      "Je spreekt vlot Nederlands; kennis van het Frans is een troef",
      "Je bent een echte teamspeler",
      "Ervaring is een plus, maar geen vereiste",
      "Je bent flexibel en stressbestendig",
    ],
    tasks: [
      "Je staat in voor de behandeling en opvolging van patiënten",
      "Je assisteert bij behandelingen aan de stoel",
      "Je zorgt voor de sterilisatie van het instrumentarium",
      "Je beheert de agenda en het onthaal",
      "Je geeft mondhygiëneadvies aan patiënten",
      "Je werkt mee aan de digitale patiëntendossiers",
      "Je volgt de voorraad op",
    ],
    offer: [
      "Een aantrekkelijk loon",
      "Een moderne praktijk met digitale röntgen en intra-orale scanner",
      "Flexibele werkuren",
      "Een fijne werksfeer in een hecht team",
      "Ruime opleidingsmogelijkheden",
      "Maaltijdcheques en ecocheques",
      "Een vaste patiëntenpopulatie",
    ],
    contact:
      'Interesse? Stuur je cv en motivatie naar {N} via <a href="mailto:{E}">{E}</a> of bel {T}.',
    teaser: "{P} zoekt een {f} in {C}.",
    region: ["Regio {C}", "<p>{C} en omstreken</p>", "{C} e.o."],
    offerTitle: "Wij bieden",
  },
  fr: {
    heading: [
      "{F} recherché(e) à {C}",
      "{F} (h/f/x) – {C}",
      "Nous recherchons un(e) {f} !",
      "Offre d'emploi : {f} à {C}",
    ],
    intro: [
      "{P} à {C} recherche un(e) {f} motivé(e) pour renforcer son équipe.",
      "Pour notre cabinet moderne situé à {C}, nous cherchons un(e) {f} (h/f/x).",
      "Vous êtes le/la {f} qui viendra compléter notre équipe à {C} ? Lisez la suite !",
      "Suite à son expansion, {P} recrute un(e) {f}.",
    ],
    profile: [
      "Vous disposez d'un diplôme pertinent ou d'une expérience équivalente",
      "Vous avez le sens du contact et de l'accueil",
      "Vous travaillez avec précision et dans le respect de l'hygiène",
      "Vous parlez français ; la connaissance du néerlandais est un atout",
      "Vous avez l'esprit d'équipe",
      "Une première expérience est un plus",
      "Vous êtes flexible et résistant(e) au stress",
    ],
    tasks: [
      "Vous assurez les soins et le suivi des patients",
      "Vous assistez au fauteuil",
      "Vous gérez la stérilisation des instruments",
      "Vous gérez l'agenda et l'accueil",
      "Vous donnez des conseils d'hygiène bucco-dentaire",
      "Vous tenez à jour les dossiers patients",
      "Vous suivez le stock",
    ],
    offer: [
      "Une rémunération attractive",
      "Un cabinet moderne avec radiographie numérique et scanner intra-oral",
      "Des horaires flexibles",
      "Une ambiance de travail agréable",
      "Des possibilités de formation",
      "Des chèques-repas et écochèques",
      "Une patientèle fidèle",
    ],
    contact:
      'Intéressé(e) ? Envoyez votre CV et votre lettre de motivation à {N} via <a href="mailto:{E}">{E}</a> ou appelez le {T}.',
    teaser: "{P} recherche un(e) {f} à {C}.",
    region: ["Région de {C}", "<p>{C} et environs</p>", "{C} et alentours"],
    offerTitle: "Nous offrons",
  },
} as const;

function fill(template: string, input: VacancyTextInput, label: string): string {
  return template
    .replaceAll("{F}", label.charAt(0).toUpperCase() + label.slice(1))
    .replaceAll("{f}", label)
    .replaceAll("{C}", input.city)
    .replaceAll("{P}", input.practiceName)
    .replaceAll("{N}", input.contactName)
    .replaceAll("{E}", input.email)
    .replaceAll("{T}", input.phone);
}

const list = (items: readonly string[]): string =>
  `<ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul>`;

/** An intro as a word processor pastes it: Office classes, inline styles, `<o:p>` and `&nbsp;`. */
export function pastedFormatting(text: string): string {
  const style =
    "font-size:11.0pt;font-family:&quot;Calibri&quot;,sans-serif;mso-ascii-theme-font:minor-latin;mso-fareast-language:NL-BE";
  return `<p class="MsoNormal"><span style="${style}">${text}<o:p></o:p></span></p>\n<p class="MsoNormal"><span style="${style}"><o:p>&nbsp;</o:p></span></p>`;
}

export function positionLabel(lang: Lang, code: string | null): string {
  return (
    (code !== null ? LABELS[lang][code] : undefined) ??
    (lang === "nl" ? "medewerker" : "collaborateur")
  );
}

export function vacancyText(random: Random, input: VacancyTextInput, pasted: boolean): VacancyText {
  const phrases = PHRASES[input.lang];
  const label = positionLabel(input.lang, input.positionCode);
  const f = (template: string): string => fill(template, input, label);
  const introText = f(random.pick(phrases.intro));
  return {
    heading: f(random.pick(phrases.heading)),
    frontendName: f("{F} {C}"),
    internalName: f(`${input.positionCode ?? "?"} {P}`),
    teaser: f(phrases.teaser),
    intro: pasted ? pastedFormatting(introText) : `<p>${introText}</p>`,
    profile: list(random.sample(phrases.profile, random.int(2, 4))),
    tasks: list(random.sample(phrases.tasks, random.int(2, 4))),
    offer: `<p><strong>${phrases.offerTitle}</strong></p>${list(random.sample(phrases.offer, random.int(2, 4)))}`,
    contact: `<p>${f(phrases.contact)}</p>`,
    region: f(random.pick(phrases.region)),
  };
}

/** URL-safe slug: lower case, accents removed, runs of anything else turned into one dash. */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Public path including the language prefix the public site uses. */
export function slugPath(lang: Lang, title: string, id: number): string {
  return `${lang === "nl" ? "vacatures" : "postesvacants"}/${slugify(title)}-${id}`;
}
