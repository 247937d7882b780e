/**
 * The vacancy field catalogue: the one description of the vacancy response shape. The metadata
 * endpoint publishes it, the OpenAPI document is generated from it, and the `Vacancy` type the
 * mapper must produce is derived from it, so a field cannot be added, renamed or retyped in one
 * place only.
 */
import type { FieldSpec, ObservedValue, ResourceInfo } from "@svc/catalogue";

/** Keeps literal paths, types and allowed values for `Vacancy`; each entry must be a FieldSpec. */
function catalogue<const F extends readonly FieldSpec[]>(fields: F): F {
  return fields;
}

const html = <const P extends string>(path: P, description: string, example: string) =>
  ({
    path,
    type: "string",
    nullable: true,
    kind: "html",
    source: "primary",
    description,
    example,
  }) as const;

const reserved = <const P extends string>(path: P) =>
  ({
    path,
    type: "null",
    nullable: true,
    kind: "reserved",
    source: "none",
    description: "In the contract but without a source yet; always null.",
    example: null,
  }) as const;

export const VACANCY_FIELDS = catalogue([
  {
    path: "uuid",
    type: "string",
    nullable: false,
    kind: "identifier",
    source: "primary",
    description: "Identity of the vacancy, issued by the primary system.",
    example: "3f2b8c1e-7d4a-4e2b-9c51-0a6d2e8f4b17",
  },
  {
    path: "title",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "primary",
    description:
      "The first non-empty of: public heading, frontend name, internal name. Null when all three are empty.",
    example: "Tandarts gezocht – Gent centrum",
  },
  {
    path: "slug",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "primary",
    description:
      "Path on the public site including the language prefix: `vacatures/` (nl) or `postesvacants/` (fr).",
    example: "vacatures/tandarts-gezocht-gent-centrum-1042",
  },
  {
    path: "teaser",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "primary",
    description: "Short introduction.",
    example: "Een warme groepspraktijk in Gent zoekt versterking.",
  },
  {
    path: "language",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "primary",
    description: "Language of the vacancy (ISO 639-1). Any other source value becomes null.",
    example: "nl",
    allowedValues: [
      { value: "nl", description: "Dutch" },
      { value: "fr", description: "French" },
    ],
  },
  {
    path: "practice.legacy_reference",
    type: "string",
    nullable: true,
    kind: "reference",
    source: "primary",
    references: "practices.practice_id",
    description:
      "The practice_id of the practice; may point to either practice source. Referential integrity is not enforced: the practice may not exist.",
    example: "5b0e6f3a-2c1d-4f8e-a9b7-3d6c1e2f0a94",
  },
  {
    path: "practice.name",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "primary",
    description: "Snapshot of the practice name at vacancy creation; never updated.",
    example: "Tandartspraktijk Vermeulen",
  },
  {
    path: "practice.type",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "primary",
    description:
      "Which choice list the practice was picked from in the vacancy form (snapshot at creation; not the practice's organisation type).",
    example: "Primary",
    allowedValues: [
      { value: "Primary", description: "practice from the primary-system list" },
      { value: "Secondary", description: "secondary-source practice" },
    ],
  },
  {
    path: "location.province.code",
    type: "string",
    nullable: true,
    kind: "reference_list",
    source: "primary",
    referenceList: "provinces",
    description:
      "Province code from reference list `provinces`; may be absent, inactive or unknown to the list.",
    example: "OVL",
  },
  {
    path: "location.province.label",
    type: "string",
    nullable: true,
    kind: "derived",
    source: "svc_derived",
    description:
      "Label of the province code in reference list `provinces`; null for an unknown or absent code.",
    example: "Oost-Vlaanderen",
  },
  html("location.region", "Free-text region; may contain HTML.", "Gent en omstreken"),
  reserved("location.postal_code"),
  reserved("location.city"),
  reserved("location.country"),
  reserved("location.latitude"),
  reserved("location.longitude"),
  {
    path: "position.code",
    type: "string",
    nullable: true,
    kind: "reference_list",
    source: "primary",
    referenceList: "positions",
    description:
      "Position code from reference list `positions`; may be absent, inactive or unknown to the list.",
    example: "TA",
  },
  {
    path: "position.label",
    type: "string",
    nullable: true,
    kind: "derived",
    source: "svc_derived",
    description:
      "Label of the position code in reference list `positions`; null for an unknown or absent code.",
    example: "Tandarts",
  },
  {
    path: "employment.time.code",
    type: "string",
    nullable: true,
    kind: "legacy_code",
    source: "primary",
    description: "Raw working-time value, not normalised; use employment.time.value for logic.",
    example: "Fulltime",
  },
  {
    path: "employment.time.value",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "svc_derived",
    description: "Normalised working time; null for an unknown or absent source value.",
    example: "full_time",
    allowedValues: [
      { value: "full_time", description: "from `Fulltime`" },
      { value: "part_time", description: "from `Parttime`" },
      { value: "full_or_part_time", description: "from `ParttimeFulltime`" },
    ],
  },
  {
    path: "employment.contract.code",
    type: "string",
    nullable: true,
    kind: "legacy_code",
    source: "primary",
    description: "Raw contract value, not normalised; use employment.contract.value for logic.",
    example: "Werknemer",
  },
  {
    path: "employment.contract.value",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "svc_derived",
    description: "Normalised contract type; null for an unknown or absent source value.",
    example: "employee",
    allowedValues: [
      { value: "employee", description: "from `Werknemer`" },
      { value: "self_employed", description: "from `Zelfstandig`" },
      { value: "employee_or_self_employed", description: "from `Werknemer - zelfstandig`" },
    ],
  },
  html(
    "content.intro",
    "Introduction as entered (HTML, unchanged); may contain formatting pasted from a word processor.",
    "<p>Wij zoeken een <b>tandarts</b> voor onze praktijk in Gent.</p>",
  ),
  html(
    "content.profile",
    "Candidate profile as entered (HTML, unchanged).",
    "<ul><li>Diploma tandarts</li></ul>",
  ),
  html(
    "content.tasks",
    "Tasks as entered (HTML, unchanged).",
    "<ul><li>Algemene tandheelkunde</li></ul>",
  ),
  html(
    "content.offer",
    "What the practice offers, as entered (HTML, unchanged).",
    "<p>Een vast contract in een modern kabinet.</p>",
  ),
  html(
    "content.contact",
    "Contact text as entered (HTML, unchanged).",
    "<p>Mail naar jobs@example-praktijk.be</p>",
  ),
  {
    path: "image",
    type: "string",
    nullable: true,
    kind: "free_text",
    source: "primary",
    description: "Image reference (upload path, absolute URL or file name); format not guaranteed.",
    example: "uploads/vacatures/2024/05/vacature-1042.jpg",
  },
  {
    path: "status.code",
    type: "string",
    nullable: true,
    kind: "legacy_code",
    source: "primary",
    description:
      "Raw status value of an unused legacy workflow; the backend sets 1 on creation. Use status.value for logic.",
    example: "1",
  },
  {
    path: "status.value",
    type: "string",
    nullable: true,
    kind: "enum",
    source: "svc_derived",
    description:
      "Status of an unused legacy workflow; does NOT decide whether a vacancy is online (see published). Null for an unknown or absent source value.",
    example: "created",
    allowedValues: [
      { value: "created", description: "from 1" },
      { value: "open", description: "from 2" },
      { value: "filled", description: "from 3" },
    ],
  },
  {
    path: "visible",
    type: "boolean",
    nullable: false,
    kind: "boolean",
    source: "primary",
    description: "Set active in the primary system.",
    example: true,
  },
  {
    path: "published",
    type: "boolean",
    nullable: false,
    kind: "derived",
    source: "svc_derived",
    description:
      "Online per the public-site rule: visible AND (display_date absent, or today or earlier), today being the Europe/Brussels calendar date.",
    example: true,
  },
  {
    path: "display_date",
    type: "string",
    nullable: true,
    kind: "date",
    source: "primary",
    description:
      "Online from this date (YYYY-MM-DD); null means immediately; a future date means scheduled.",
    example: "2025-06-01",
  },
  {
    path: "created_at",
    type: "string",
    nullable: true,
    kind: "date_time",
    source: "primary",
    description: "Creation time, ISO 8601 with the Europe/Brussels offset of that instant.",
    example: "2024-05-02T09:30:00+02:00",
  },
  {
    path: "updated_at",
    type: "string",
    nullable: true,
    kind: "date_time",
    source: "primary",
    description:
      "Last modification time, ISO 8601 with the Europe/Brussels offset of that instant.",
    example: "2024-05-14T10:12:00+02:00",
  },
  reserved("valid_through"),
  {
    path: "seeking_nurse_code",
    type: "string",
    nullable: true,
    kind: "legacy_code",
    source: "primary",
    description: "Raw value with unconfirmed meaning; do not interpret.",
    example: "0",
  },
]);

/**
 * Raw values seen in the source for the legacy codes, with what the service makes of each. Only
 * documentation: the mapper's tables (to-vacancy.ts) decide, and a test checks these agree.
 */
export const VACANCY_OBSERVED_VALUES: Record<string, ObservedValue[]> = {
  "employment.time.code": [
    { value: "Fulltime", note: "value full_time" },
    { value: "Parttime", note: "value part_time" },
    { value: "ParttimeFulltime", note: "value full_or_part_time" },
    { value: "Voltijds", note: "not a known value: value null" },
    { value: "fulltime", note: "differs in case from Fulltime, so not a known value: value null" },
  ],
  "employment.contract.code": [
    { value: "Werknemer", note: "value employee" },
    { value: "Zelfstandig", note: "value self_employed" },
    { value: "Werknemer - zelfstandig", note: "value employee_or_self_employed" },
    {
      value: "Werknemer-zelfstandig",
      note: "spelled without spaces, so not a known value: value null",
    },
    { value: "Interim", note: "not a known value: value null" },
  ],
  "status.code": [
    { value: "1", note: "value created; set on creation" },
    { value: "2", note: "value open" },
    { value: "3", note: "value filled" },
  ],
  seeking_nurse_code: [
    { value: "0", note: "meaning unconfirmed" },
    { value: "1", note: "meaning unconfirmed" },
    { value: "J", note: "meaning unconfirmed" },
    { value: "N", note: "meaning unconfirmed" },
    { value: "2", note: "meaning unconfirmed" },
    { value: "", note: "empty string, passed through" },
  ],
  language: [
    { value: "de", note: "not nl or fr: null" },
    { value: "NL", note: "upper case is not nl: null" },
  ],
};

export const VACANCY_RESOURCE: ResourceInfo = {
  resource: "vacancy",
  endpoint: "/v1/vacancies",
  identifier: "uuid",
  schemaVersion: 1,
};

type Catalogue = typeof VACANCY_FIELDS;
type Field = Catalogue[number];

type ValueOf<F extends Field> =
  | (F extends { allowedValues: ReadonlyArray<{ value: infer V }> }
      ? V
      : F["type"] extends "string"
        ? string
        : F["type"] extends "boolean"
          ? boolean
          : F["type"] extends "number" | "integer"
            ? number
            : null)
  | (F["nullable"] extends true ? null : never);

type Nest<P extends string, V> = P extends `${infer Head}.${infer Rest}`
  ? { [K in Head]: Nest<Rest, V> }
  : { [K in P]: V };
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
type Expand<T> = T extends object ? { [K in keyof T]: Expand<T[K]> } : T;

type Branch<F> = F extends Field ? Nest<F["path"], ValueOf<F>> : never;

/** The canonical vacancy, derived from the catalogue: nested objects from dotted paths. */
export type Vacancy = Expand<Intersect<Branch<Field>>>;

/** Allowed values of an enum field, for the mapper's lookup tables. */
export type AllowedOf<P extends Field["path"]> = Exclude<
  ValueOf<Extract<Field, { path: P }>>,
  null
>;
