/**
 * Fixture catalogue: the hand-made records that exercise each practice and vacancy field rule,
 * keyed by meaning. They are present at every seed and scale (bulk records come in addition), so
 * tests say `fixtures.vacancies.displayDateFuture` instead of a magic id.
 *
 * Practice values are `practice_id`s (the CRM reference); vacancy values are vacancy `uuid`s.
 * "today" means the reference date the data set was seeded with (`today` option); fixtures whose
 * meaning depends on it (display dates, secondary periods) are placed relative to that date.
 */

const practiceUuid = (n: number): string =>
  `f1c7a000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const vacancyUuid = (n: number): string => `f1c7b000-0000-4000-8000-${String(n).padStart(12, "0")}`;

export const fixtures = {
  practices: {
    /**
     * In both sources. Primary row: active, visible, `nl`. CRM row: stop date yesterday, language
     * `fr`, another name. The primary row wins (active, nl); name comes from the CRM row.
     */
    collisionPrimaryWins: practiceUuid(1),
    /**
     * Ordinary primary practice with everything filled: CRM row, coordinates, logo, region/contact
     * HTML, coach, one TDM link.
     */
    primaryComplete: practiceUuid(2),
    /**
     * Primary row without CRM row: warning `source_record_missing`; name from the primary copy; no
     * address/VAT/contact/geo.
     */
    primaryWithoutCrmRow: practiceUuid(3),
    /** Two active and visible primary rows: warning `multiple_active_rows`. */
    multipleActiveRows: practiceUuid(4),
    /** Two primary rows, one active and one not: no warning. */
    oneActiveOneInactiveRow: practiceUuid(5),
    /** Primary row not active (but visible): `active` false. */
    primaryInactive: practiceUuid(6),
    /** Primary row active but not visible: `visible` false, so `active` false too. */
    primaryInvisible: practiceUuid(7),
    /** CRM row with no name: name falls back to the primary copy. */
    nameFromPrimaryCopy: practiceUuid(8),
    /** Language `fr`, Liège. */
    languageFr: practiceUuid(9),
    /** Language `de` (Eupen): not nl/fr, so null. */
    languageOther: practiceUuid(10),
    /** Language empty string: null. */
    languageEmpty: practiceUuid(11),
    /** Language NULL: null. */
    languageMissing: practiceUuid(12),
    /** CRM row without postal code: no coordinates, `geo_precision` null. */
    missingPostalCode: practiceUuid(13),
    /**
     * Dutch postal code `4811 AB` (Breda, country `Nederland`): not in the postal-code table, so no
     * coordinates.
     */
    postalCodeNotInAreaTable: practiceUuid(14),
    /** Country `België`: passed through, not ISO. */
    countryNotIso: practiceUuid(15),
    /** Country NULL. */
    countryMissing: practiceUuid(16),
    /** No VAT number. */
    missingVat: practiceUuid(17),
    /** No province text (valid). */
    provinceTextMissing: practiceUuid(18),
    /** Three TDM links. */
    tdmLinksMany: practiceUuid(19),
    /** No TDM links although a CRM row exists. */
    tdmLinksNone: practiceUuid(20),
    /** Two practices with the same exact name (`values.sharedPracticeName`), for `search`. */
    sharedNameFirst: practiceUuid(21),
    sharedNameSecond: practiceUuid(22),
    /** No logo, region text, contact text or coach. */
    presentationEmpty: practiceUuid(23),
    /** Older non-UUID id with a slash (needs URL encoding), primary only. */
    legacyIdWithSlash: "ACC/2009/117",
    /** Older non-UUID id with a space (needs URL encoding), primary only. */
    legacyIdWithSpace: "OUD 0042",
    /** Older all-digits id with a leading zero (must stay a string), primary only. */
    legacyIdNumeric: "004711",
    /** Secondary practice, start in the past, stop `2999-12-31`: active. */
    secondaryOpenEnded: practiceUuid(51),
    /** Secondary practice whose stop date was yesterday: inactive. */
    secondaryStopped: practiceUuid(52),
    /** Secondary practice starting tomorrow: inactive. */
    secondaryFutureStart: practiceUuid(53),
    /** Secondary practice starting today: active (bounds inclusive). */
    secondaryStartsToday: practiceUuid(54),
    /** Secondary practice stopping today: active (bounds inclusive). */
    secondaryStopsToday: practiceUuid(55),
    /** Secondary practice with neither start nor stop date: active (a missing bound is open). */
    secondaryPeriodMissing: practiceUuid(56),
    /** Secondary practice in French. */
    secondaryLanguageFr: practiceUuid(57),
    /** Secondary practice with language `en`: null. */
    secondaryLanguageOther: practiceUuid(58),
  },
  vacancies: {
    /** Everything ordinary: nl, heading, known codes, visible, no display date: published. */
    ordinary: vacancyUuid(1),
    titleFromPublicHeading: vacancyUuid(2),
    /** Public heading is an empty string: title from the frontend name. */
    titleFromFrontendName: vacancyUuid(3),
    /** Heading NULL, frontend name empty: title from the internal name. */
    titleFromInternalName: vacancyUuid(4),
    /** All three title sources empty or NULL: title null. */
    titleMissing: vacancyUuid(5),
    languageFr: vacancyUuid(6),
    /** Language `de`: null. */
    languageOther: vacancyUuid(7),
    /** Language empty string: null. */
    languageEmpty: vacancyUuid(8),
    slugMissing: vacancyUuid(9),
    provinceUnknown: vacancyUuid(10),
    provinceInactive: vacancyUuid(11),
    provinceAbsent: vacancyUuid(12),
    positionUnknown: vacancyUuid(13),
    positionInactive: vacancyUuid(14),
    positionAbsent: vacancyUuid(15),
    employmentFulltime: vacancyUuid(16),
    employmentParttime: vacancyUuid(17),
    employmentParttimeFulltime: vacancyUuid(18),
    employmentTimeUnknown: vacancyUuid(19),
    contractWerknemer: vacancyUuid(20),
    contractZelfstandig: vacancyUuid(21),
    contractWerknemerZelfstandig: vacancyUuid(22),
    contractUnknown: vacancyUuid(23),
    statusCreated: vacancyUuid(24),
    statusOpen: vacancyUuid(25),
    statusFilled: vacancyUuid(26),
    /** Not visible, no display date: not published. */
    invisible: vacancyUuid(27),
    /** Not visible although the display date has passed: not published. */
    invisibleWithPastDisplayDate: vacancyUuid(28),
    /** Visible, display date NULL: published. */
    displayDateAbsent: vacancyUuid(29),
    /** Visible, display date yesterday: published. */
    displayDatePast: vacancyUuid(30),
    /** Visible, display date today: published. */
    displayDateToday: vacancyUuid(31),
    /** Visible, display date tomorrow: scheduled, not published. */
    displayDateFuture: vacancyUuid(32),
    /** Soft-deleted (visible, would be published): never returned. */
    softDeleted: vacancyUuid(33),
    practicePrimary: vacancyUuid(34),
    practiceSecondary: vacancyUuid(35),
    /** No practice reference at all. */
    practiceNone: vacancyUuid(36),
    /** Reference to a practice id that exists in neither source. */
    practiceDangling: vacancyUuid(37),
    /** Reference to the legacy id `ACC/2009/117`. */
    practiceLegacyId: vacancyUuid(38),
    /**
     * Picked from the secondary list at creation; that id now also has a primary row (snapshot
     * stays `crm`).
     */
    practiceTypeSnapshotStale: vacancyUuid(39),
    /** Practice name snapshot differs from the practice's current name. */
    practiceNameSnapshotDiffers: vacancyUuid(40),
    /** Intro pasted from a word processor (`<p class="MsoNormal"><span style=...>`). */
    pastedFormatting: vacancyUuid(41),
    /**
     * Created 2024-03-31 01:45 (CET, +01:00), updated 03:15 the same night (CEST, +02:00): 30
     * minutes apart.
     */
    dstSpringForward: vacancyUuid(42),
    /** Created 2024-10-27 01:45 (CEST, +02:00), updated 03:15 (CET, +01:00): 2.5 hours apart. */
    dstFallBack: vacancyUuid(43),
    /** Updated 2024-10-27 02:30, a wall-clock time that happened twice that night. */
    dstFallBackAmbiguous: vacancyUuid(44),
    /** created/updated both NULL. */
    timestampsMissing: vacancyUuid(45),
    /** Seeking-nurse raw value `J`. */
    seekingNurseCodeSet: vacancyUuid(46),
    imageMissing: vacancyUuid(47),
    /** Image is an absolute URL rather than an upload path. */
    imageAbsoluteUrl: vacancyUuid(48),
    /** Fixed `updated` timestamp far in the past, for `updated_since` tests. */
    updatedLongAgo: vacancyUuid(49),
  },
  values: {
    sharedPracticeName: "Tandartspraktijk De Linde",
    openEndedStopDate: "2999-12-31",
    inactiveProvinceCode: "BRA",
    unknownProvinceCode: "ZLD",
    inactivePositionCode: "STAG",
    unknownPositionCode: "DH",
    unknownEmploymentTime: "Voltijds",
    unknownContract: "Interim",
    danglingPracticeId: practiceUuid(999),
  },
} as const;

export type PracticeFixture = keyof typeof fixtures.practices;
export type VacancyFixture = keyof typeof fixtures.vacancies;
