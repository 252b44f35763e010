"""The ToolClient (in-process and HTTP), the one renderer of tool results and the LangChain wrappers."""
