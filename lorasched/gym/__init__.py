"""The three systems as Gymnasium environments, for learned (reinforcement-learning)
policies: pdFTSP's online admission, TITAN's allocation at each event and Allpass's
provisioning each minute. Needs the optional extra ``gymnasium``
(``pip install "lorasched[gym]"``); the decision problems themselves are each system's
``env`` module, which the built-in ``random`` policies use without Gymnasium.
"""
