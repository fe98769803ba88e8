// Imported first by the entry point: production mode before Elysia loads, so
// validation errors never echo whole schemas back to clients.
process.env.NODE_ENV ??= "production";
