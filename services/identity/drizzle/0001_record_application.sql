-- POST /v1/applications as one statement: identity resolution and every write of a new application
-- in one round trip (docs/decisions/application-write-path.md). Runs in the caller's transaction;
-- called alone, the statement is its own transaction. The resolution rules (README "Identity
-- resolution"), given the usable keys in precedence order (e-mail, then phone):
-- - no usable key: unresolved, a new candidate with no identifiers;
-- - no key known: resolved, a new candidate answering to every key;
-- - every known key leads to one survivor: resolved to it, keys not yet known linked to it;
-- - known keys lead to different survivors: ambiguous, to the first key's survivor, nothing linked.
-- It returns applications' columns by row type: a column added to applications needs this function
-- replaced in the same migration.
CREATE FUNCTION "identity"."record_application"(
	p_hashes bytea[],
	p_kinds text[],
	p_lock_keys bigint[],
	p_vacancy_uuid text,
	p_practice_id text,
	p_consent boolean,
	p_entrypoint_raw text,
	p_entrypoint_code text,
	p_now timestamptz,
	p_candidate_uuid uuid,
	p_case_uuid uuid,
	p_application_uuid uuid,
	p_events jsonb,
	p_trace_context jsonb,
	p_max_depth integer
) RETURNS TABLE (
	application_uuid uuid,
	candidate_uuid uuid,
	vacancy_uuid text,
	practice_id text,
	resolution text,
	consent_flag boolean,
	entrypoint_raw text,
	entrypoint_code text,
	recruitment_case_uuid uuid,
	created_at timestamptz,
	updated_at timestamptz,
	submitted_at timestamptz,
	candidate_created boolean,
	application_created boolean
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_survivors uuid[];
	v_first uuid;
	v_distinct integer;
	v_candidate uuid;
	v_resolution text;
	v_link boolean[];
	v_created boolean;
	v_case uuid;
	v_case_created boolean := false;
	v_app "identity"."applications";
	v_events jsonb[];
BEGIN
	-- Serialises resolutions sharing an identifier; ascending order, so two cannot deadlock.
	PERFORM pg_advisory_xact_lock(k) FROM unnest(p_lock_keys) AS k ORDER BY k;
	-- Each key's surviving candidate (the end of its merge chain), null when the key is unknown.
	SELECT array_agg(s.survivor ORDER BY s.ord) INTO v_survivors
	  FROM (
		SELECT h.ord, (
			WITH RECURSIVE chain(candidate_uuid, next_uuid, depth) AS (
				SELECT c.candidate_uuid, c.merged_into_candidate_uuid, 0
				  FROM "identity"."candidate_identifiers" i
				  JOIN "identity"."candidates" c ON c.candidate_uuid = i.candidate_uuid
				 WHERE i.lookup_hash = h.hash
				UNION ALL
				SELECT c.candidate_uuid, c.merged_into_candidate_uuid, chain.depth + 1
				  FROM chain JOIN "identity"."candidates" c ON c.candidate_uuid = chain.next_uuid
				 WHERE chain.depth < p_max_depth
			)
			SELECT chain.candidate_uuid FROM chain WHERE chain.next_uuid IS NULL LIMIT 1
		) AS survivor
		  FROM unnest(p_hashes) WITH ORDINALITY AS h(hash, ord)
	  ) s;
	SELECT u INTO v_first FROM unnest(v_survivors) AS u WHERE u IS NOT NULL LIMIT 1;
	SELECT count(DISTINCT u) INTO v_distinct FROM unnest(v_survivors) AS u;
	IF coalesce(cardinality(p_hashes), 0) = 0 THEN
		v_resolution := 'unresolved';
		v_candidate := NULL;
		v_link := '{}';
	ELSIF v_first IS NULL THEN
		v_resolution := 'resolved';
		v_candidate := NULL;
		v_link := array_fill(true, ARRAY[cardinality(p_hashes)]);
	ELSIF v_distinct > 1 THEN
		-- Ambiguous: the first key's (the e-mail's) candidate, and nothing new linked.
		v_resolution := 'ambiguous';
		v_candidate := v_first;
		v_link := array_fill(false, ARRAY[cardinality(p_hashes)]);
	ELSE
		v_resolution := 'resolved';
		v_candidate := v_first;
		SELECT array_agg(u IS NULL ORDER BY o) INTO v_link
		  FROM unnest(v_survivors) WITH ORDINALITY AS x(u, o);
	END IF;

	v_created := v_candidate IS NULL;
	IF v_created THEN
		v_candidate := p_candidate_uuid;
		INSERT INTO "identity"."candidates" (candidate_uuid, status, merged_into_candidate_uuid, created_at, updated_at)
		VALUES (v_candidate, 'active', NULL, p_now, NULL);
	END IF;
	INSERT INTO "identity"."candidate_identifiers" (lookup_hash, kind, candidate_uuid, created_at)
	SELECT k.hash, k.kind, v_candidate, p_now
	  FROM unnest(p_hashes, p_kinds, v_link) AS k(hash, kind, link)
	 WHERE k.link
	ON CONFLICT ON CONSTRAINT candidate_identifiers_pkey DO NOTHING;

	IF NOT v_created THEN
		-- The same person applying to the same vacancy again gets the existing application: the
		-- survivor's own first, then the oldest of those merged into it.
		SELECT a.* INTO v_app
		  FROM "identity"."applications" a
		 WHERE a.vacancy_uuid = p_vacancy_uuid
		   AND a.candidate_uuid IN (
			WITH RECURSIVE tree(candidate_uuid, depth) AS (
				SELECT v_candidate, 0
				UNION ALL
				SELECT c.candidate_uuid, tree.depth + 1
				  FROM "identity"."candidates" c JOIN tree ON c.merged_into_candidate_uuid = tree.candidate_uuid
				 WHERE tree.depth < p_max_depth
			)
			SELECT tree.candidate_uuid FROM tree)
		 ORDER BY a.candidate_uuid = v_candidate DESC, a.created_at, a.application_uuid
		 LIMIT 1;
		IF FOUND THEN
			RETURN QUERY SELECT v_app.*, false, false;
			RETURN;
		END IF;
	END IF;

	INSERT INTO "identity"."recruitment_cases" AS r (recruitment_case_uuid, candidate_uuid, vacancy_uuid, practice_id, created_at, updated_at)
	VALUES (p_case_uuid, v_candidate, p_vacancy_uuid, p_practice_id, p_now, NULL)
	ON CONFLICT ON CONSTRAINT recruitment_cases_candidate_vacancy_key DO NOTHING
	RETURNING r.recruitment_case_uuid INTO v_case;
	v_case_created := v_case IS NOT NULL;
	IF NOT v_case_created THEN
		SELECT r.recruitment_case_uuid INTO v_case FROM "identity"."recruitment_cases" r
		 WHERE r.candidate_uuid = v_candidate AND r.vacancy_uuid = p_vacancy_uuid;
		IF v_case IS NULL THEN
			RAISE EXCEPTION 'recruitment case vanished after a unique-constraint conflict';
		END IF;
	END IF;

	INSERT INTO "identity"."applications" AS a (application_uuid, candidate_uuid, vacancy_uuid, practice_id, resolution, consent_flag, entrypoint_raw, entrypoint_code, recruitment_case_uuid, created_at, updated_at, submitted_at)
	VALUES (p_application_uuid, v_candidate, p_vacancy_uuid, p_practice_id, v_resolution, p_consent, p_entrypoint_raw, p_entrypoint_code, v_case, p_now, NULL, NULL)
	ON CONFLICT ON CONSTRAINT applications_candidate_vacancy_key DO NOTHING
	RETURNING a.* INTO v_app;
	IF v_app.application_uuid IS NULL THEN
		-- A concurrent request for the same candidate and vacancy committed first: its application.
		SELECT a.* INTO v_app FROM "identity"."applications" a
		 WHERE a.candidate_uuid = v_candidate AND a.vacancy_uuid = p_vacancy_uuid;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'application vanished after a unique-constraint conflict';
		END IF;
		RETURN QUERY SELECT v_app.*, false, false;
		RETURN;
	END IF;

	v_events := '{}';
	IF v_created THEN
		v_events := v_events || (p_events -> 'candidate.created');
	END IF;
	IF v_case_created THEN
		v_events := v_events || (p_events -> 'recruitment_case.created');
	ELSE
		UPDATE "identity"."recruitment_cases" r SET updated_at = p_now WHERE r.recruitment_case_uuid = v_case;
	END IF;
	v_events := v_events || (p_events -> 'application.created');
	INSERT INTO "identity"."outbox" (event_uuid, event_type, payload, trace_context)
	SELECT (e ->> 'event_uuid')::uuid, e ->> 'event_type', e, p_trace_context
	  FROM unnest(v_events) WITH ORDINALITY AS x(e, o)
	 ORDER BY o
	ON CONFLICT ON CONSTRAINT outbox_event_uuid_unique DO NOTHING;
	RETURN QUERY SELECT v_app.*, v_created, true;
END
$$;
