-- The app's PostgreSQL role (docs/security/record.md): run as the owner, in database workbench,
-- after the owner has made or upgraded the tables.
GRANT USAGE ON SCHEMA public TO workbench_app;
GRANT SELECT ON alembic_version TO workbench_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON documents, evidence_ids, runs, run_evidence, users TO workbench_app;
GRANT SELECT, INSERT ON review_events TO workbench_app;
GRANT USAGE ON SEQUENCE review_events_id_seq TO workbench_app;
GRANT SELECT, INSERT ON security_events, workspace_flags TO workbench_app;
GRANT SELECT, INSERT, UPDATE ON review_tables TO workbench_app;
GRANT SELECT, INSERT ON table_cells TO workbench_app;
GRANT USAGE ON SEQUENCE table_cells_id_seq TO workbench_app;
GRANT USAGE ON SEQUENCE security_events_id_seq TO workbench_app;
