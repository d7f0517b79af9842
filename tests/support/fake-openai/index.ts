export { startFakeOpenAIServer, FAKE_MODEL_ID, type FakeOpenAIServer } from "./fake-openai-server";
export type {
  FakeStep,
  FakeUsage,
  FakeTextStep,
  FakeToolCallStep,
  FakeErrorStep,
  FakeDropStep,
  FakeHangStep,
  RecordedRequest,
} from "./fake-step";
