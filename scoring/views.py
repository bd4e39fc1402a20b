from django.shortcuts import render

from scoring.selectors import game_list


def home(request):
    return render(request, "scoring/home.html", {"games": game_list()[:20]})
