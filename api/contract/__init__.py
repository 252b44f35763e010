"""The tool contract: the wire models, the one tool table and the error codes shared by server and clients.

Everything a client needs to speak to the tool API lives here, below `motivgraph.agents`, so agents import
the contract and the API never imports an agent.
"""
