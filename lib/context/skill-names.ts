export const LOAD_SKILL_TOOL_NAME = "load_skill";
