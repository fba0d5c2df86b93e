// The SDK and proto packages export dist/ (built JavaScript) to their consumers, and under this
// export condition their TypeScript sources, which the repository runs directly. npm run, npm start
// and npx set it through .npmrc's node-options; a process started with an environment of its own
// (tests, the stack's services) gets it on its command line: `spawn(process.execPath, [sourceCondition, file])`.

/** The Node flag that resolves @platform/tool-sdk and @platform/proto to their TypeScript sources. */
export const sourceCondition = '--conditions=@platform/source';
