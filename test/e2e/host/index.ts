// Every integration test that runs inside the real extension host is imported here (bundled as hostTests.js).
import './activation.test';
import './agent.test';
import './undoFiles.test';
