"""Everything that talks to a model: providers, prompts, agents, orchestrator."""
