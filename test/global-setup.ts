/** Says which database this run exercises, once, so a CI log shows both runs. */
export default function setup(): void {
  const target = process.env.DATABASE_URL ? `PostgreSQL (${new URL(process.env.DATABASE_URL).pathname.slice(1)})` : 'embedded PGlite (in memory)';
  process.stdout.write(`\nMoneta tests against ${target}\n\n`);
}
