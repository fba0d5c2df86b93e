// Schema version 7 on SQLite, 8 on PostgreSQL (the same text): the deliveries that were sent again
// are looked up by the one they were sent from (a resend, a recovery), so that what was sent again
// is not sent again twice; an index of the few rows that have one.
export const resendIndex = `CREATE INDEX deliveries_resend_of ON deliveries (resend_of) WHERE resend_of IS NOT NULL`;
