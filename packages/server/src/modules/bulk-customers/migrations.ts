import { sql, type Kysely } from 'kysely';

/** Bulk customer imports from CSV (issue 24): jobs, their staged rows and their failed rows. */
export const bulkImports = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE bulk_import_jobs (
      id            text PRIMARY KEY,
      platform_id   text NOT NULL REFERENCES platforms(id),
      status        text NOT NULL,
      file_name     text NOT NULL,
      total         integer NOT NULL,
      processed     integer NOT NULL DEFAULT 0,
      successful    integer NOT NULL DEFAULT 0,
      failed        integer NOT NULL DEFAULT 0,
      cursor_line   integer NOT NULL DEFAULT 0,
      completed_at  timestamptz,
      created_at    timestamptz NOT NULL,
      updated_at    timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX bulk_import_jobs_by_platform ON bulk_import_jobs (platform_id, created_at, id)`.execute(db);
    await sql`CREATE TABLE bulk_import_rows (
      job_id       text NOT NULL REFERENCES bulk_import_jobs(id),
      platform_id  text NOT NULL REFERENCES platforms(id),
      line         integer NOT NULL,
      cells        jsonb NOT NULL,
      PRIMARY KEY (job_id, line)
    )`.execute(db);
    await sql`CREATE TABLE bulk_import_errors (
      job_id          text NOT NULL REFERENCES bulk_import_jobs(id),
      platform_id     text NOT NULL REFERENCES platforms(id),
      line            integer NOT NULL,
      correlation_id  text NOT NULL,
      code            text NOT NULL,
      message         text NOT NULL,
      details         jsonb NOT NULL,
      PRIMARY KEY (job_id, line)
    )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE bulk_import_errors`.execute(db);
    await sql`DROP TABLE bulk_import_rows`.execute(db);
    await sql`DROP TABLE bulk_import_jobs`.execute(db);
  },
};
