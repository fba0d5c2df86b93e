// The SDK's testing export (`@platform/tool-sdk/testing`): what every package's tests and benchmarks
// need to stand up real loopback parts and read what they logged. No side effects on import.
export { captureLogs, type CapturedLogs } from './log-capture.ts';
export { closedPort, listen, listenOnFreePort, type Listening } from './loopback-server.ts';
export { manualClock, type ManualClock } from './manual-clock.ts';
export { discoveryDocument, platformFailure, settingsFailure, tokenExpiringIn } from './platform-values.ts';
export { rejectionOf } from './rejection.ts';
export { startedForTests, type StartedForTestsOptions, type StartedPart } from './started-for-tests.ts';
export { startPlatformFixture, type PlatformFixture, type StagedCaller, type StagedFailure } from './platform-fixture.ts';
export { startRegistryFixture, type FixtureRegistration, type RegistryCall, type RegistryFixture, type RegistryFixtureOptions } from './registry-fixture.ts';
export { toolClient, type CallAnswer, type ToolClient, type ToolClientCallOptions } from './tool-client.ts';
export { healthClient, healthStatus, reflectedServices, type HealthClient } from './grpc-probes.ts';
export { until } from './until.ts';
