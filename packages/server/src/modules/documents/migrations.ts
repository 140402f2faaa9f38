import { sql, type Kysely } from 'kysely';

/** Documents of customers and beneficial owners, and their content when the database stores it (issue 23). */
export const documents = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE TABLE documents (
      id                 text PRIMARY KEY,
      platform_id        text NOT NULL REFERENCES platforms(id),
      holder_id          text NOT NULL,
      document_type      text NOT NULL,
      side               text,
      country            text NOT NULL,
      document_number    text,
      issuing_authority  text,
      file_name          text NOT NULL,
      content_type       text NOT NULL,
      size_bytes         integer NOT NULL,
      sha256             text NOT NULL,
      content_key        text NOT NULL,
      submitted_at       timestamptz,
      created_at         timestamptz NOT NULL,
      updated_at         timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX documents_by_platform ON documents (platform_id, created_at, id)`.execute(db);
    await sql`CREATE INDEX documents_by_holder ON documents (platform_id, holder_id, created_at, id)`.execute(db);
    await sql`CREATE TABLE document_contents (
      content_key  text NOT NULL,
      platform_id  text NOT NULL REFERENCES platforms(id),
      seq          integer NOT NULL,
      data         bytea NOT NULL,
      PRIMARY KEY (content_key, seq)
    )`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`DROP TABLE document_contents`.execute(db);
    await sql`DROP TABLE documents`.execute(db);
  },
};
