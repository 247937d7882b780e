/** A CRM mirror account as the CRM writes it: every key, the optional ones null. */
export const CRM_ACCOUNT = {
  name: "Tandartspraktijk Vermeulen",
  alias: null,
  organisation_type: null,
  language: "nl",
  identifiers: { vat: null },
  address: { street: null, postal_code: null, city: "Gent", province: null, country: "BE" },
  contact: { email: null, phone: null },
  period: { start_date: null, stop_date: null },
  modified_on: "2025-06-01T10:00:00Z",
};
