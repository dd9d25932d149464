// Test-wide defaults: quiet logs, no rate limits unless a test turns them on.
process.env['LOG_LEVEL'] ??= 'silent';
